//! The factory list a library carries as data (left there by `export_plugin!`, see
//! `sim_plugin_api::export::LISTING_MAGIC`), read from the file so that what a library
//! serves is known without opening it, and compared with what it reports once opened.

use super::FactoryDesc;
use sim_plugin_api::PluginKind;
use sim_plugin_api::export::{LISTING_END, LISTING_MAGIC};

/// The most factories one list may hold, and the most bytes it may take.
const MAX_FACTORIES: usize = 256;
const MAX_LISTING_BYTES: usize = 1 << 20;

/// The factory list in `data` (a library's read-only data), if there is one and it is well
/// formed; None when there is none (a library built before the list existed) or when it is
/// malformed (the library is then opened to learn what it serves).
pub(super) fn find(data: &[u8]) -> Option<Vec<FactoryDesc>> {
    let start = data
        .windows(LISTING_MAGIC.len())
        .position(|w| w == LISTING_MAGIC)?
        + LISTING_MAGIC.len();
    let rest = &data[start..data.len().min(start + MAX_LISTING_BYTES)];
    let mut fields = rest.split(|&b| b == 0);
    let mut factories = Vec::new();
    loop {
        let kind = fields.next()?;
        if kind == LISTING_END {
            return Some(factories);
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
        let list = find(&data).unwrap();
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
}
