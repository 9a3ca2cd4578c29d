//! How the Zenoh session is configured: endpoints, domain, node name, `/clock` rate.

use sim_codec::names::RosNames;
use std::path::PathBuf;
use std::time::Duration;

/// Where ROS 2's rmw_zenoh looks for its router, and where simcore listens when nobody does.
pub const DEFAULT_ENDPOINT: &str = "tcp/localhost:7447";

/// The largest `--zenoh-config` file read (Zenoh's configuration is a few kilobytes).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The transport's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct ZenohOptions {
    /// Endpoints to connect to (`tcp/host:port`); none: see [`ZenohOptions::configs`].
    pub connect: Vec<String>,
    /// Endpoints to listen on.
    pub listen: Vec<String>,
    /// A Zenoh configuration file (JSON5, Zenoh's own format); the endpoints above are added
    /// to it.
    pub config_file: Option<PathBuf>,
    /// The ROS domain (`ROS_DOMAIN_ID`).
    pub domain: u32,
    /// The ROS node name of the run.
    pub node: String,
    /// How often `/clock` is published, per second of sim time (0: every step).
    pub clock_rate: f64,
    /// The ROS name of each topic (the run's remaps, else the rule of [`sim_codec::names`]):
    /// the same names a recording of the run uses.
    pub names: RosNames,
}

impl Default for ZenohOptions {
    fn default() -> Self {
        ZenohOptions {
            connect: Vec::new(),
            listen: Vec::new(),
            config_file: None,
            domain: 0,
            node: "simcore".into(),
            clock_rate: 100.0,
            names: RosNames::default(),
        }
    }
}

/// Why the transport could not start.
#[derive(Debug, thiserror::Error)]
pub enum ZenohError {
    /// The configuration file could not be used.
    #[error("--zenoh-config {path}: {reason}")]
    Config {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// An option has a value Zenoh refuses.
    #[error("{0}")]
    Option(String),
    /// The session could not be opened.
    #[error("cannot open the Zenoh session: {0}")]
    Open(String),
    /// The open session refused a declaration or an operation.
    #[error("Zenoh: {0}")]
    Session(String),
}

/// A Zenoh error's text without the source location Zenoh appends (` at <file>:<line>.`).
pub(crate) fn message(e: impl std::fmt::Display) -> String {
    let text = e.to_string();
    match text.find(" at /") {
        Some(i) => text[..i].trim_end().to_string(),
        None => text,
    }
}

impl ZenohOptions {
    /// The domain of `ROS_DOMAIN_ID` (0 when unset; an error when not a number in 0..=232,
    /// the range ROS allows).
    pub fn domain_from_env() -> Result<u32, ZenohError> {
        match std::env::var("ROS_DOMAIN_ID") {
            Err(_) => Ok(0),
            Ok(v) if v.trim().is_empty() => Ok(0),
            Ok(v) => v
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|d| *d <= 232)
                .ok_or_else(|| {
                    ZenohError::Option(format!(
                        "ROS_DOMAIN_ID must be a number from 0 to 232, got `{v}`"
                    ))
                }),
        }
    }

    /// The Zenoh configurations to try, in order, each with timestamping on: the file's (if
    /// any) with the endpoints given added; else a peer with multicast scouting off, connecting and listening where
    /// told. Without any endpoint given (and no file), first one listening on
    /// [`DEFAULT_ENDPOINT`] when nothing listens there, then one joining whoever does (a
    /// ROS 2 router, another simcore: also the fallback when another process took the port
    /// first). A peer not told where to listen listens on a free port of localhost only.
    pub fn configs(&self) -> Result<Vec<zenoh::Config>, ZenohError> {
        let mut base = match &self.config_file {
            Some(path) => read_config(path)?,
            None => {
                let mut c = zenoh::Config::default();
                set(&mut c, "mode", "\"peer\"")?;
                set(&mut c, "scouting/multicast/enabled", "false")?;
                c
            }
        };
        // Samples carry timestamps (as rmw_zenoh's sessions send them): the latched
        // publishers' caches need them.
        set(&mut base, "timestamping/enabled", "true")?;
        if self.config_file.is_none() && self.connect.is_empty() && self.listen.is_empty() {
            let mut join = base.clone();
            set(
                &mut join,
                "connect/endpoints",
                &json_list(&[DEFAULT_ENDPOINT.into()]),
            )?;
            set(
                &mut join,
                "listen/endpoints",
                &json_list(&["tcp/localhost:0".into()]),
            )?;
            if someone_listens_on_default() {
                return Ok(vec![join]);
            }
            set(
                &mut base,
                "listen/endpoints",
                &json_list(&[DEFAULT_ENDPOINT.into()]),
            )?;
            return Ok(vec![base, join]);
        }
        let mut listen = self.listen.clone();
        if self.config_file.is_none() && listen.is_empty() {
            listen.push("tcp/localhost:0".into());
        }
        if !self.connect.is_empty() {
            set(&mut base, "connect/endpoints", &json_list(&self.connect))?;
        }
        if !listen.is_empty() {
            set(&mut base, "listen/endpoints", &json_list(&listen))?;
        }
        Ok(vec![base])
    }
}

pub(crate) fn read_config(path: &std::path::Path) -> Result<zenoh::Config, ZenohError> {
    let fail = |reason: String| ZenohError::Config {
        path: path.to_path_buf(),
        reason,
    };
    let len = std::fs::metadata(path)
        .map_err(|e| fail(e.to_string()))?
        .len();
    if len > MAX_CONFIG_BYTES {
        return Err(fail(format!(
            "{len} bytes, more than the {MAX_CONFIG_BYTES} a configuration may have"
        )));
    }
    zenoh::Config::from_file(path).map_err(|e| fail(e.to_string()))
}

pub(crate) fn set(c: &mut zenoh::Config, key: &str, value: &str) -> Result<(), ZenohError> {
    c.insert_json5(key, value)
        .map_err(|e| ZenohError::Option(format!("Zenoh option `{key}` = {value}: {e}")))
}

fn json_list(items: &[String]) -> String {
    serde_json::Value::from(items.to_vec()).to_string()
}

/// Whether a TCP server answers on localhost's port 7447 (IPv4 or IPv6).
fn someone_listens_on_default() -> bool {
    ["127.0.0.1:7447", "[::1]:7447"].iter().any(|a| {
        a.parse().is_ok_and(|a| {
            std::net::TcpStream::connect_timeout(&a, Duration::from_millis(300)).is_ok()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_endpoints_are_used_as_they_are() {
        let o = ZenohOptions {
            connect: vec!["tcp/127.0.0.1:1".into()],
            listen: vec!["tcp/127.0.0.1:0".into()],
            ..Default::default()
        };
        let c = o.configs().unwrap().remove(0);
        assert_eq!(
            c.get_json("connect/endpoints").unwrap(),
            r#"["tcp/127.0.0.1:1"]"#
        );
        assert_eq!(
            c.get_json("listen/endpoints").unwrap(),
            r#"["tcp/127.0.0.1:0"]"#
        );
        assert_eq!(c.get_json("mode").unwrap(), r#""peer""#);
        assert_eq!(c.get_json("scouting/multicast/enabled").unwrap(), "false");
    }

    #[test]
    fn a_bad_endpoint_or_file_is_an_error() {
        let o = ZenohOptions {
            listen: vec!["not an endpoint".into()],
            ..Default::default()
        };
        assert!(o.configs().is_err());
        let o = ZenohOptions {
            config_file: Some("/nonexistent/zenoh.json5".into()),
            ..Default::default()
        };
        let e = o.configs().unwrap_err().to_string();
        assert!(
            e.starts_with("--zenoh-config /nonexistent/zenoh.json5:"),
            "{e}"
        );
    }

    #[test]
    fn errors_lose_zenohs_source_location() {
        assert_eq!(
            message("Unable to connect to any of [tcp/127.0.0.1:9]!  at /src/orchestrator.rs:447."),
            "Unable to connect to any of [tcp/127.0.0.1:9]!"
        );
        assert_eq!(message("plain"), "plain");
    }

    #[test]
    fn a_config_file_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("z.json5");
        std::fs::write(
            &p,
            r#"{ mode: "client", connect: { endpoints: ["tcp/127.0.0.1:9"] } }"#,
        )
        .unwrap();
        let o = ZenohOptions {
            config_file: Some(p),
            ..Default::default()
        };
        let c = o.configs().unwrap().remove(0);
        assert_eq!(c.get_json("mode").unwrap(), r#""client""#);
        assert_eq!(
            c.get_json("connect/endpoints").unwrap(),
            r#"["tcp/127.0.0.1:9"]"#
        );
    }
}
