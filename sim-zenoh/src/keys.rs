//! The strings and bytes of rmw_zenoh's wire protocol: data keys, liveliness tokens, QoS
//! strings, entity GIDs and sample attachments.

use sim_codec::RosType;

/// The graph's liveliness key space (`@` makes it verbatim: wildcards never match it).
pub const GRAPH: &str = "@ros2_lv";

pub use sim_codec::qos::Qos;

/// The token's QoS chunk of `qos`: each value only where it differs from rmw_zenoh's default
/// (reliable, volatile, keep last 42, infinite deadline and lifespan, automatic liveliness).
pub fn qos_chunk(qos: Qos) -> &'static str {
    match qos {
        Qos::SensorData => "2::,5:,:,:,,",
        Qos::Reliable => "::,10:,:,:,,",
        Qos::Latched => ":1:,1:,:,:,,",
    }
}

/// What an endpoint token announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndpointKind {
    /// A publisher (`MP`).
    Publisher,
    /// A subscription (`MS`).
    Subscription,
    /// A service server (`SS`).
    Service,
    /// A service client (`SC`).
    Client,
}

impl EndpointKind {
    fn chunk(self) -> &'static str {
        match self {
            EndpointKind::Publisher => "MP",
            EndpointKind::Subscription => "MS",
            EndpointKind::Service => "SS",
            EndpointKind::Client => "SC",
        }
    }

    /// The kind a token's chunk names (`MP`, `MS`, `SS`, `SC`).
    pub fn from_chunk(chunk: &str) -> Option<EndpointKind> {
        [
            EndpointKind::Publisher,
            EndpointKind::Subscription,
            EndpointKind::Service,
            EndpointKind::Client,
        ]
        .into_iter()
        .find(|k| k.chunk() == chunk)
    }
}

/// A name inside a token: every `/` becomes `%`, and an empty name is `%`.
pub fn mangle(name: &str) -> String {
    if name.is_empty() {
        "%".into()
    } else {
        name.replace('/', "%")
    }
}

/// A name read back from a token: every `%` becomes `/` (the root `%` is `/`).
pub fn unmangle(chunk: &str) -> String {
    chunk.replace('%', "/")
}

/// The data key of a topic or service: `<domain>/<name without its outer '/'>/<dds type>/<hash>`.
pub fn data_key(domain: u32, ros_name: &str, dds_type: &str, hash: &str) -> String {
    format!("{domain}/{}/{dds_type}/{hash}", ros_name.trim_matches('/'))
}

/// The data key of a topic of type `ty`.
pub fn topic_key(domain: u32, ros_name: &str, ty: &RosType) -> String {
    data_key(domain, ros_name, &ty.dds_name(), ty.hash)
}

/// The key every type of a topic matches: its type and hash chunks are wildcards.
pub fn any_type_key(domain: u32, ros_name: &str) -> String {
    format!("{domain}/{}/*/*", ros_name.trim_matches('/'))
}

/// The type a data key names in its type chunk (`<domain>/<name>/<dds type>/<hash>`).
pub fn type_of_key(key: &str) -> Option<&'static RosType> {
    let mut chunks = key.rsplit('/');
    let _hash = chunks.next()?;
    let dds = chunks.next()?;
    sim_codec::catalog::ALL
        .iter()
        .copied()
        .find(|t| t.dds_name() == dds)
}

/// simcore's own key space beside the ROS graph (`@` makes it verbatim: no ROS key or
/// wildcard reaches it): the world's plugin services, called with JSON.
pub const SIMCORE: &str = "@simcore";

/// The key of a call to the world service `name` (a system plugin's or a sensor's
/// `set_rate`): `@simcore/<domain>/call/<name without its leading '/'>`.
pub fn world_call_key(domain: u32, name: &str) -> String {
    format!("{SIMCORE}/{domain}/call/{}", name.trim_start_matches('/'))
}

/// The key whose answer lists the world's services: `@simcore/<domain>/services`.
pub fn world_services_key(domain: u32) -> String {
    format!("{SIMCORE}/{domain}/services")
}

/// The node of a session: its id, name and the session's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// `ROS_DOMAIN_ID`.
    pub domain: u32,
    /// The Zenoh session id (32 hex digits).
    pub zid: String,
    /// The node id within the session.
    pub id: u32,
    /// The node's name (root namespace, no enclave).
    pub name: String,
}

impl Node {
    /// The node's own token: `@ros2_lv/<domain>/<zid>/<nid>/<nid>/NN/%/%/<name>`.
    pub fn token(&self) -> String {
        format!(
            "{GRAPH}/{}/{}/{}/{}/NN/%/%/{}",
            self.domain,
            self.zid,
            self.id,
            self.id,
            mangle(&self.name)
        )
    }

    /// The token of one of the node's endpoints (`eid` unique within the session).
    pub fn endpoint_token(
        &self,
        eid: u32,
        kind: EndpointKind,
        ros_name: &str,
        dds_type: &str,
        hash: &str,
        qos: Qos,
    ) -> String {
        format!(
            "{GRAPH}/{}/{}/{}/{eid}/{}/%/%/{}/{}/{dds_type}/{hash}/{}",
            self.domain,
            self.zid,
            self.id,
            kind.chunk(),
            mangle(&self.name),
            mangle(ros_name),
            qos_chunk(qos)
        )
    }
}

/// The entity GID rmw_zenoh derives from a token: its XXH3-128 hash, low 64 bits then high,
/// each little-endian.
pub fn gid(token: &str) -> [u8; 16] {
    xxhash_rust::xxh3::xxh3_128(token.as_bytes()).to_le_bytes()
}

/// Length of a sample's attachment.
pub const ATTACHMENT_LEN: usize = 33;

/// The attachment of every sample, request and reply (rmw_zenoh's positional format, Jazzy
/// 0.2.4 and later): sequence number and source timestamp (ns since the Unix epoch) as
/// little-endian `int64`, then the GID as a 16-byte array with its length (`0x10`).
pub fn attachment(sequence: i64, timestamp_ns: i64, gid: &[u8; 16]) -> [u8; ATTACHMENT_LEN] {
    let mut a = [0u8; ATTACHMENT_LEN];
    a[..8].copy_from_slice(&sequence.to_le_bytes());
    a[8..16].copy_from_slice(&timestamp_ns.to_le_bytes());
    a[16] = 16;
    a[17..].copy_from_slice(gid);
    a
}

/// The sequence number and GID of an attachment, if it has rmw_zenoh's form.
pub fn parse_attachment(bytes: &[u8]) -> Option<(i64, [u8; 16])> {
    if bytes.len() != ATTACHMENT_LEN || bytes[16] != 16 {
        return None;
    }
    let seq = i64::from_le_bytes(bytes[..8].try_into().ok()?);
    Some((seq, bytes[17..].try_into().ok()?))
}

/// Nanoseconds since the Unix epoch, now (the source timestamp rmw_zenoh sends).
pub fn wall_clock_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_codec::catalog;

    fn node() -> Node {
        Node {
            domain: 0,
            zid: "8b2d4a3e1f0c9d7e6a5b4c3d2e1f0a9b".into(),
            id: 0,
            name: "simcore".into(),
        }
    }

    #[test]
    fn keys_are_rmw_zenohs() {
        // The key verified against rosbags' hash in the reference's experiment.
        assert_eq!(
            topic_key(0, "/scan", &catalog::LASER_SCAN),
            "0/scan/sensor_msgs::msg::dds_::LaserScan_/RIHS01_64c191398013af96509d518dac71d5164f9382553fce5c1f8cca5be7924bd828"
        );
        assert_eq!(
            topic_key(7, "/robot1/scan/", &catalog::LASER_SCAN)
                .split('/')
                .take(3)
                .collect::<Vec<_>>(),
            ["7", "robot1", "scan"]
        );
        assert_eq!(any_type_key(0, "/model/p/cmd_vel"), "0/model/p/cmd_vel/*/*");
    }

    #[test]
    fn tokens_are_rmw_zenohs() {
        let n = node();
        assert_eq!(
            n.token(),
            "@ros2_lv/0/8b2d4a3e1f0c9d7e6a5b4c3d2e1f0a9b/0/0/NN/%/%/simcore"
        );
        let t = n.endpoint_token(
            10,
            EndpointKind::Publisher,
            "/scan",
            &catalog::LASER_SCAN.dds_name(),
            catalog::LASER_SCAN.hash,
            Qos::Reliable,
        );
        assert_eq!(
            t,
            "@ros2_lv/0/8b2d4a3e1f0c9d7e6a5b4c3d2e1f0a9b/0/10/MP/%/%/simcore/%scan/sensor_msgs::msg::dds_::LaserScan_/RIHS01_64c191398013af96509d518dac71d5164f9382553fce5c1f8cca5be7924bd828/::,10:,:,:,,"
        );
        let s = n.endpoint_token(
            3,
            EndpointKind::Subscription,
            "/model/p/cmd_vel",
            "T",
            "H",
            Qos::SensorData,
        );
        assert!(
            s.ends_with("/3/MS/%/%/simcore/%model%p%cmd_vel/T/H/2::,5:,:,:,,"),
            "{s}"
        );
        assert_eq!(mangle(""), "%");
    }

    #[test]
    fn gid_is_xxh3_128_low_half_first() {
        let h = xxhash_rust::xxh3::xxh3_128(b"abc");
        let g = gid("abc");
        assert_eq!(u64::from_le_bytes(g[..8].try_into().unwrap()), h as u64);
        assert_eq!(
            u64::from_le_bytes(g[8..].try_into().unwrap()),
            (h >> 64) as u64
        );
    }

    #[test]
    fn attachments_round_trip_and_have_the_positional_layout() {
        let g: [u8; 16] = std::array::from_fn(|i| i as u8 + 1);
        let a = attachment(1, 0x0102_0304_0506_0708, &g);
        assert_eq!(a[..8], [1, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(a[8..16], [8, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(a[16], 0x10);
        assert_eq!(parse_attachment(&a), Some((1, g)));
        assert_eq!(parse_attachment(&a[..32]), None);
        let mut bad = a;
        bad[16] = 15;
        assert_eq!(parse_attachment(&bad), None);
    }
}
