//! The messages of `tools/ros_golden.py`, built here ([`cases`]) and checked against the
//! bytes rosbags wrote for them (`golden.tsv`); each also checks the other facets of its
//! kind's entry in [`kinds::KINDS`].

mod cases;

use super::*;
pub(crate) use cases::{Case, Check, cases};
use sim_plugin_api::Message;

const GOLDEN: &str = include_str!("golden.tsv");

/// The golden lines: (type, case, bytes).
pub(super) fn golden() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    GOLDEN
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let mut f = l.split('\t');
            let (ty, name, hex) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
            let bytes = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            (ty, name, bytes)
        })
        .collect()
}

fn same(a: &Message, b: &Message) -> bool {
    format!("{:?}{:?}", a.header, a.payload) == format!("{:?}{:?}", b.header, b.payload)
}

#[test]
fn every_golden_line_has_a_case() {
    let cases = cases();
    let lines = golden();
    for (ty, name, _) in &lines {
        let base = name.strip_suffix("-be").unwrap_or(name);
        assert!(
            cases.iter().any(|c| c.ty == *ty && c.name == base),
            "{ty} {name}"
        );
    }
    assert_eq!(
        lines.iter().filter(|l| !l.1.ends_with("-be")).count(),
        cases.len()
    );
}

#[test]
fn golden_bytes_decode_to_the_cases() {
    let lines = golden();
    for c in cases() {
        for (ty, name, bytes) in lines
            .iter()
            .filter(|l| l.0 == c.ty && (l.1 == c.name || l.1.strip_suffix("-be") == Some(c.name)))
        {
            let got = decode_message(ty, bytes);
            match c.check {
                Check::Refused => assert!(got.is_err(), "{ty} {name}: {got:?}"),
                Check::Encode => {
                    got.unwrap_or_else(|e| panic!("{ty} {name}: {e}"));
                }
                Check::Both | Check::Decode => {
                    let got = got.unwrap_or_else(|e| panic!("{ty} {name}: {e}"));
                    assert!(
                        same(&got, &c.message),
                        "{ty} {name}:\n{:?}\n{:?}\nvs\n{:?}\n{:?}",
                        got.header,
                        got.payload,
                        c.message.header,
                        c.message.payload
                    );
                }
            }
        }
    }
}

#[test]
fn encode_writes_the_golden_bytes() {
    let lines = golden();
    let mut checked = 0;
    for c in cases() {
        if !matches!(c.check, Check::Both | Check::Encode) {
            continue;
        }
        let (_, _, want) = lines
            .iter()
            .find(|l| l.0 == c.ty && l.1 == c.name)
            .unwrap_or_else(|| panic!("no golden line for {} {}", c.ty, c.name));
        let mut out = Vec::new();
        let ty = encode_with(&c.message, &c.options, &mut out);
        assert_eq!(ty.map(|t| t.name), Some(c.ty), "{}", c.name);
        assert_eq!(
            hex(&out),
            hex(want),
            "{} {}: encoded (left) vs rosbags (right)",
            c.ty,
            c.name
        );
        checked += 1;
    }
    assert!(checked >= 38, "{checked}");
}

/// The kind of a case's payload.
fn kind_of(c: &Case) -> &'static kinds::Kind {
    let name = c.kind_name();
    kinds::kind_named(name).unwrap_or_else(|| panic!("{} {}: no kind {name}", c.ty, c.name))
}

/// Each golden case checks every facet of its kind's entry in [`kinds::KINDS`]: its encoder
/// writes the golden bytes as one of the entry's ROS types; the entry reads the case's ROS type
/// and its reader gives the message back from every golden line of the case; its JSON form is
/// printed by the entry and has the kind's name as `type`; and a kind with a JSON reader reads
/// that form (without `topic` and `header`) back into the payload, while the others refuse it.
#[test]
fn each_golden_case_checks_every_facet_of_its_kind() {
    let lines = golden();
    let mut checked = 0;
    for c in cases() {
        if c.check == Check::Refused {
            continue;
        }
        let k = kind_of(&c);
        let at = format!("{} {} ({})", c.ty, c.name, k.name);
        let payload = c.message.payload.as_enum().unwrap();
        if matches!(c.check, Check::Both | Check::Encode) {
            let (_, _, want) = lines
                .iter()
                .find(|l| l.0 == c.ty && l.1 == c.name)
                .unwrap_or_else(|| panic!("{at}: no golden line"));
            let mut out = Vec::new();
            let ty = (k.encode)(payload, &c.message.header, &c.options, &mut out)
                .unwrap_or_else(|| panic!("{at}: the entry's encoder wrote nothing"));
            assert_eq!(ty.name, c.ty, "{at}");
            assert!(k.ros.contains(&ty), "{at}: {} is not in `ros`", ty.name);
            assert_eq!(
                hex(&out),
                hex(want),
                "{at}: encoded (left) vs rosbags (right)"
            );
        }
        if matches!(c.check, Check::Both | Check::Decode) {
            let reader = k
                .reads
                .iter()
                .find(|r| r.ty.name == c.ty)
                .unwrap_or_else(|| panic!("{at}: the entry does not read {}", c.ty));
            for (_, name, bytes) in lines
                .iter()
                .filter(|l| l.0 == c.ty && l.1.strip_suffix("-be").unwrap_or(l.1) == c.name)
            {
                let mut r = CdrReader::new(bytes).unwrap();
                let (header, payload) = (reader.read)(&mut r)
                    .unwrap_or_else(|e| panic!("{at} {name}: the entry's reader: {e}"));
                r.finish().unwrap_or_else(|e| panic!("{at} {name}: {e}"));
                let mut got = Message::new("", payload);
                got.header = header;
                assert!(same(&got, &c.message), "{at} {name}: {got:?}");
            }
        }
        let printed = (k.json)(payload).unwrap_or_else(|| panic!("{at}: the entry prints nothing"));
        let mut v = json::message_json("/golden", &c.message);
        assert_eq!(v["type"], k.name, "{at}: {v}");
        assert!(v.get("note").is_none(), "{at}: {v}");
        let o = v.as_object_mut().unwrap();
        let fields = match printed {
            serde_json::Value::Object(f) => f.len(),
            _ => 1,
        };
        assert_eq!(
            o.len(),
            fields + 3,
            "{at}: topic, type, header and the entry's fields"
        );
        o.remove("topic");
        o.remove("header");
        let back = json::payload_from_json(&v);
        match k.from_json {
            Some(_) => {
                let back = back.unwrap_or_else(|e| panic!("{at}: {v}: {e}"));
                assert_eq!(format!("{back:?}"), format!("{payload:?}"), "{at}: {v}");
            }
            None => assert!(
                matches!(&back, Err(json::PayloadError::UnknownType(t)) if t == k.name),
                "{at}: {back:?}"
            ),
        }
        checked += 1;
    }
    assert!(checked >= 40, "{checked}");
}

/// Every kind but `Custom` (which has no ROS form) has golden cases: one encoded as each of
/// its `ros` types and one decoded from each type it reads, so a new kind needs its cases.
#[test]
fn every_kind_but_custom_has_golden_cases() {
    let cases = cases();
    for k in kinds::KINDS {
        if k.name == "Custom" {
            assert!(
                k.ros.is_empty() && k.reads.is_empty(),
                "Custom has no ROS form"
            );
            continue;
        }
        let of_kind = || cases.iter().filter(|c| kind_of(c) == k);
        for ty in k.ros {
            assert!(
                of_kind()
                    .any(|c| c.ty == ty.name && matches!(c.check, Check::Both | Check::Encode)),
                "{}: no golden case encoded as {}",
                k.name,
                ty.name
            );
        }
        for r in k.reads {
            assert!(
                of_kind()
                    .any(|c| c.ty == r.ty.name && matches!(c.check, Check::Both | Check::Decode)),
                "{}: no golden case decoded from {}",
                k.name,
                r.ty.name
            );
        }
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
