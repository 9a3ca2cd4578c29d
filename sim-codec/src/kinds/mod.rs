//! The payload kinds, as [`Payload::type_name`](sim_plugin_api::Payload::type_name) spells
//! them, with the ROS 2 types [`encode`](fn@crate::encode) writes each as (what a listing of
//! a run's topics shows before anything was published) and the one
//! [`decode`](fn@crate::decode) reads it from (what an input of that kind is offered as).
//!
//! A kind is one entry of [`KINDS`], which also holds its codec: the ROS 2 types it is read
//! from with their readers, its CDR encoder, its JSON writer and, for the kinds a message can
//! be written as in JSON, its JSON reader. [`encode`](fn@crate::encode),
//! [`decode`](fn@crate::decode) and [`json`](crate::json) look the kind up here.

pub(crate) mod entry;

pub use entry::Kind;
pub(crate) use entry::ReadFn;

use crate::msgs::{geometry, image, scan, sensor, simcore, std_msgs};

/// Every payload kind, in [`Payload`](sim_plugin_api::Payload)'s order.
pub const KINDS: &[Kind] = &[
    std_msgs::EMPTY,
    std_msgs::BOOLEAN,
    std_msgs::DOUBLE,
    std_msgs::INT64,
    std_msgs::STRING,
    geometry::VECTOR3D,
    geometry::TWIST,
    geometry::POSE,
    geometry::POSE_V,
    sensor::IMU,
    scan::LASER_SCAN,
    scan::POINT_CLOUD_PACKED,
    image::IMAGE,
    image::CAMERA_INFO,
    sensor::NAV_SAT,
    simcore::LOGICAL_CAMERA_IMAGE,
    simcore::LOGICAL_CAMERA_SENSOR,
    simcore::ALTIMETER,
    sensor::MAGNETOMETER,
    sensor::FLUID_PRESSURE,
    geometry::ODOMETRY,
    sensor::BATTERY_STATE,
    simcore::ENTITY_FACTORY,
    simcore::PERFORMANCE_SENSOR_METRICS,
    simcore::CUSTOM,
    geometry::WRENCH,
    simcore::CONTACTS,
    simcore::FIDUCIALS,
];

/// The kind named `name` ([`KINDS`]), if there is one.
pub fn kind_named(name: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.name == name)
}

/// The reader of the ROS 2 type `package/msg/name`, whichever kind reads it.
pub(crate) fn reader(package: &str, name: &str) -> Option<ReadFn> {
    KINDS
        .iter()
        .flat_map(|k| k.reads)
        .find(|r| r.ty.package() == package && r.ty.short_name() == name)
        .map(|r| r.read)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog as t;
    use crate::golden_tests::{Check, cases};
    use crate::json::PayloadError;

    /// A golden message decoded from a kind's `read_from` type is of that kind, and each
    /// kind's type is one the decoder knows (a type it does not know is refused as unknown,
    /// whatever the bytes).
    #[test]
    fn each_kind_is_read_from_a_type_decode_reads_as_that_kind() {
        let mut checked = 0;
        for c in cases() {
            if !matches!(c.check, Check::Both | Check::Decode) {
                continue;
            }
            let Some(k) = KINDS
                .iter()
                .find(|k| k.read_from.is_some_and(|t| t.name == c.ty))
            else {
                continue;
            };
            let name = c.kind_name();
            assert_eq!(name, k.name, "{}", c.name);
            checked += 1;
        }
        assert!(checked >= 20, "{checked} golden cases decode a kind's type");
        for k in KINDS {
            let Some(from) = k.read_from else {
                assert_eq!(k.name, "Custom", "only Custom has no ROS form");
                continue;
            };
            let r = crate::decode(from.name, &[0, 1, 0, 0]);
            assert!(
                !matches!(r, Err(crate::DecodeError::UnknownType(_))),
                "{}: {r:?}",
                k.name
            );
            assert!(t::ALL.contains(&from), "{}", from.name);
        }
    }

    /// Every golden message is encoded as one of the ROS types its kind lists.
    #[test]
    fn each_kind_lists_the_types_encode_writes() {
        let mut seen = std::collections::BTreeSet::new();
        for c in cases() {
            if !matches!(c.check, Check::Both | Check::Encode) {
                continue;
            }
            let name = c.kind_name();
            let k = kind_named(name).unwrap_or_else(|| panic!("no kind {name}"));
            let mut out = Vec::new();
            if let Some(ty) = crate::encode_with(&c.message, &c.options, &mut out) {
                assert!(k.ros.contains(&ty), "{name}: {}", ty.name);
                seen.insert(name);
            }
        }
        assert!(seen.len() >= 20, "{seen:?}");
        assert_eq!(kind_named("Custom").map(|k| k.ros.len()), Some(0));
        assert_eq!(kind_named("Nope"), None);
        let names: std::collections::BTreeSet<_> = KINDS.iter().map(|k| k.name).collect();
        assert_eq!(names.len(), KINDS.len(), "no kind twice");
    }

    /// Each entry reads its `read_from` type first; no ROS type is read by two kinds; and the
    /// JSON error and module docs name the kinds with a JSON reader, in the table's order.
    #[test]
    fn entries_agree_with_their_public_fields_and_the_docs() {
        let mut read = std::collections::BTreeMap::new();
        for k in KINDS {
            assert_eq!(k.read_from, k.reads.first().map(|r| r.ty), "{}", k.name);
            for r in k.reads {
                assert!(t::ALL.contains(&r.ty), "{}", r.ty.name);
                if let Some(other) = read.insert(r.ty.name, k.name) {
                    panic!("{} is read by {other} and {}", r.ty.name, k.name);
                }
                assert!(reader(r.ty.package(), r.ty.short_name()).is_some());
            }
        }
        let writable: Vec<_> = KINDS
            .iter()
            .filter(|k| k.from_json.is_some())
            .map(|k| k.name)
            .collect();
        let (last, rest) = writable.split_last().unwrap();
        let listed = format!("{} or {last}", rest.join(", "));
        let err = PayloadError::UnknownType("LaserScan".into()).to_string();
        assert!(err.ends_with(&format!("use {listed}")), "{err} vs {listed}");
        let docs: String = include_str!("../json/mod.rs")
            .lines()
            .take_while(|l| l.starts_with("//!"))
            .map(|l| l.trim_start_matches("//!"))
            .collect();
        let ticked = |names: &[&str]| names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>();
        let listed = format!("{} and `{last}`", ticked(rest).join(", "));
        assert!(
            docs.contains(&listed),
            "json/mod.rs docs should list {listed}"
        );
    }

    /// An entry's encoder and JSON writer take only payloads of its own kind.
    #[test]
    fn each_entry_encodes_and_prints_only_its_own_kind() {
        for c in cases() {
            let Ok(payload) = c.message.payload.as_enum() else {
                continue;
            };
            for k in KINDS.iter().filter(|k| k.name != payload.type_name()) {
                let mut out = Vec::new();
                let h = &c.message.header;
                assert_eq!(
                    (k.encode)(payload, h, &c.options, &mut out),
                    None,
                    "{}",
                    k.name
                );
                assert!(out.is_empty(), "{}", k.name);
                assert_eq!((k.json)(payload), None, "{} printed {}", k.name, c.name);
            }
        }
    }
}
