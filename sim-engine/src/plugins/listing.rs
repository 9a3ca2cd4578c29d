//! The factory list a library carries as data (left there by `export_plugin!`, see
//! `sim_plugin_api::export::LISTING_MAGIC`), read from the file so that what a library
//! serves is known without opening it, and compared with what it reports once opened.

use super::FactoryDesc;
use sim_plugin_api::PluginKind;
use sim_plugin_api::export::{
    ENABLERS_END, ENABLERS_MAGIC, LISTING_END, LISTING_MAGIC, TOPICS_END, TOPICS_MAGIC,
};

/// The most factories one list may hold, and the most bytes it may take.
const MAX_FACTORIES: usize = 256;
const MAX_LISTING_BYTES: usize = 1 << 20;

/// The most topic suffixes a list may declare, and the longest suffix.
const MAX_TOPICS: usize = 1024;
const MAX_SUFFIX_BYTES: usize = 256;

/// The most enabling systems a list may declare, and the longest class name.
const MAX_ENABLERS: usize = 256;
const MAX_CLASS_BYTES: usize = 256;

/// What a library's file lists: its factories, the suffix of the default topic each sensor
/// type it serves declares (`serves: ["gpu_lidar" => "scan"]`), and the gz-sim systems its
/// sensors stand for (`enabled_by: ["gz::sim::systems::Imu"]`).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Listing {
    pub factories: Vec<FactoryDesc>,
    pub topics: Vec<(String, String)>,
    pub enablers: Vec<String>,
}

/// The factory list in `data` (a library's read-only data), if there is one and it is well
/// formed; None when there is none (a library built before the list existed) or when it is
/// malformed (the library is then opened to learn what it serves). Topic suffixes follow the
/// list when the library declares them; a malformed or oversized set of them is dropped
/// whole (its sensors get Gazebo's suffixes); so is a malformed set of enabling systems that
/// follows them.
pub(super) fn find(data: &[u8]) -> Option<Listing> {
    // A vectorised substring search: a library's read-only data is megabytes.
    let start = memchr::memmem::find(data, LISTING_MAGIC)? + LISTING_MAGIC.len();
    let rest = &data[start..data.len().min(start + MAX_LISTING_BYTES)];
    let mut fields = rest.split(|&b| b == 0);
    let mut factories = Vec::new();
    loop {
        let kind = fields.next()?;
        if kind == LISTING_END {
            let topics = topics(&mut fields);
            let enablers = topics
                .is_some()
                .then(|| enablers(&mut fields))
                .flatten()
                .unwrap_or_default();
            return Some(Listing {
                factories,
                topics: topics.unwrap_or_default(),
                enablers,
            });
        }
        let kind = match kind {
            b"sensor" => PluginKind::SENSOR,
            b"system" => PluginKind::SYSTEM,
            _ => return None,
        };
        let mut text = || fields.next().and_then(|f| std::str::from_utf8(f).ok());
        let (name, version, description, serves) = (text()?, text()?, text()?, text()?);
        if factories.len() == MAX_FACTORIES {
            return None;
        }
        factories.push(FactoryDesc {
            name: name.to_string(),
            kind,
            serves: serves
                .split_terminator('\u{1f}')
                .map(str::to_string)
                .collect(),
            version: version.to_string(),
            description: description.to_string(),
        });
    }
}

/// The topic suffixes after the factory list, if they are there and well formed.
fn topics<'a>(fields: &mut impl Iterator<Item = &'a [u8]>) -> Option<Vec<(String, String)>> {
    if fields.next()? != TOPICS_MAGIC {
        return None;
    }
    let mut topics = Vec::new();
    loop {
        let sensor_type = fields.next()?;
        if sensor_type == TOPICS_END {
            return Some(topics);
        }
        let suffix = fields.next()?;
        if topics.len() == MAX_TOPICS || suffix.len() > MAX_SUFFIX_BYTES {
            return None;
        }
        let text = |f: &[u8]| std::str::from_utf8(f).ok().map(str::to_string);
        topics.push((text(sensor_type)?, text(suffix)?));
    }
}

/// The enabling systems after the topic suffixes, if they are there and well formed.
fn enablers<'a>(fields: &mut impl Iterator<Item = &'a [u8]>) -> Option<Vec<String>> {
    if fields.next()? != ENABLERS_MAGIC {
        return None;
    }
    let mut enablers = Vec::new();
    loop {
        let class = fields.next()?;
        if class == ENABLERS_END {
            return Some(enablers);
        }
        if enablers.len() == MAX_ENABLERS || class.len() > MAX_CLASS_BYTES {
            return None;
        }
        enablers.push(std::str::from_utf8(class).ok()?.to_string());
    }
}

/// Why a library whose file lists `listed` is refused once opened and reporting `real`:
/// the two differ (a library that says one thing in its file and does another).
pub(super) fn mismatch(listed: &[FactoryDesc], real: &[FactoryDesc]) -> Option<String> {
    (listed != real).then(|| {
        "the factory list in its file differs from the one it reports when opened; it was \
         refused (rebuild it with sim_plugin_api::export_plugin!)"
            .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_list_and_refuses_malformed_ones() {
        let mut data = b"junk before".to_vec();
        data.extend(LISTING_MAGIC);
        data.extend(b"sensor\0imu\x001.0\0An IMU\0imu\x1fimu2\x1f\0");
        data.extend(b"system\0drive\x000.1\0Drives\0acme::Drive\x1f\0");
        data.extend(LISTING_END);
        data.extend(b"\0more junk");
        let listing = find(&data).unwrap();
        assert_eq!(listing.topics, []);
        let list = listing.factories;
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].kind, PluginKind::SENSOR);
        assert_eq!(list[0].serves, ["imu", "imu2"]);
        assert_eq!(list[1].name, "drive");
        assert_eq!(list[1].serves, ["acme::Drive"]);
        assert_eq!(mismatch(&list, &list), None);
        assert!(mismatch(&list, &list[..1]).is_some());
        // No list, an unknown kind, a list cut short: none.
        assert_eq!(find(b"no list here"), None);
        let mut bad = LISTING_MAGIC.to_vec();
        bad.extend(b"widget\0x\0y\0z\0\0");
        bad.extend(LISTING_END);
        assert_eq!(find(&bad), None);
        let cut = &data[..data.len() - 20];
        assert_eq!(find(cut), None);
    }

    #[test]
    fn reads_the_topic_suffixes_after_the_list() {
        let mut data = LISTING_MAGIC.to_vec();
        data.extend(b"sensor\0lidar\x001.0\0A lidar\0lidar\x1fgpu_lidar\x1f\0");
        data.extend(LISTING_END);
        data.push(0);
        let mut with = data.clone();
        with.extend(TOPICS_MAGIC);
        with.extend(b"\0lidar\0lidar\0gpu_lidar\0scan\0rgbd\0\0");
        with.extend(TOPICS_END);
        with.extend(b"\0junk");
        let listing = find(&with).unwrap();
        assert_eq!(listing.factories.len(), 1);
        let pairs: Vec<(&str, &str)> = listing
            .topics
            .iter()
            .map(|(t, s)| (t.as_str(), s.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [("lidar", "lidar"), ("gpu_lidar", "scan"), ("rgbd", "")]
        );
        // Cut short, or a suffix too long: the factories stand, the suffixes go.
        let cut = &with[..with.len() - 30];
        let listing = find(cut).unwrap();
        assert_eq!((listing.factories.len(), listing.topics.len()), (1, 0));
        let mut long = data.clone();
        long.extend(TOPICS_MAGIC);
        long.extend(b"\0lidar\0");
        long.extend(vec![b'x'; MAX_SUFFIX_BYTES + 1]);
        long.push(0);
        long.extend(TOPICS_END);
        long.push(0);
        assert_eq!(find(&long).unwrap().topics, []);
        // A library built before the suffixes existed lists none.
        assert_eq!(find(&data).unwrap().topics, []);
    }

    #[test]
    fn reads_the_enabling_systems_after_the_suffixes() {
        let mut data = LISTING_MAGIC.to_vec();
        data.extend(b"sensor\0imu\x001.0\0An IMU\0imu\x1f\0");
        data.extend(LISTING_END);
        data.push(0);
        data.extend(TOPICS_MAGIC);
        data.extend(b"\0imu\0imu\0");
        data.extend(TOPICS_END);
        data.push(0);
        let mut with = data.clone();
        with.extend(ENABLERS_MAGIC);
        with.extend(b"\0gz::sim::systems::Imu\0acme::Imus\0");
        with.extend(ENABLERS_END);
        with.extend(b"\0junk");
        let listing = find(&with).unwrap();
        assert_eq!(listing.enablers, ["gz::sim::systems::Imu", "acme::Imus"]);
        assert_eq!(listing.topics.len(), 1);
        // Cut short, or a name too long: the factories and suffixes stand, the systems go.
        let cut = &with[..with.len() - 30];
        let listing = find(cut).unwrap();
        assert_eq!((listing.topics.len(), listing.enablers.len()), (1, 0));
        let mut long = data.clone();
        long.extend(ENABLERS_MAGIC);
        long.push(0);
        long.extend(vec![b'x'; MAX_CLASS_BYTES + 1]);
        long.push(0);
        long.extend(ENABLERS_END);
        long.push(0);
        assert_eq!(find(&long).unwrap().enablers, Vec::<String>::new());
        // A list without the section (a library built before it existed) declares none.
        assert_eq!(find(&data).unwrap().enablers, Vec::<String>::new());
    }
}
