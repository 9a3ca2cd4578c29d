//! The unit tests of overrides in one document's text.

use super::*;

const WORLD: &str = r#"<?xml version="1.0"?>
<sdf version="1.9">
  <!-- a comment -- with dashes -->
  <world name="w">
    <physics type="ode"><max_step_size>0.001</max_step_size></physics>
    <gz:policies><x>1</x></gz:policies>
    <model name="ground">
      <static>true</static>
      <link name="base">
        <collision name="plane">
          <surface><friction><ode><mu>1.0</mu></ode></friction></surface>
        </collision>
        <collision name="wall"><surface/></collision>
      </link>
    </model>
    <model name="box">
      <pose>0 0 1 0 0 0</pose>
      <link name="body"><inertial><mass>2</mass></inertial><gravity/></link>
      <link name="other"><gravity></gravity></link>
    </model>
  </world>
</sdf>
"#;

fn one(path: &str, value: &str) -> Result<String, OverrideError> {
    apply(WORLD, &[Override::new(path, value)])
}

#[test]
fn an_element_text_is_replaced_and_the_rest_kept() {
    let out = one(
        "world/model[ground]/link[base]/collision[plane]/surface/friction/ode/mu",
        "0.25",
    )
    .unwrap();
    assert_eq!(out, WORLD.replace("<mu>1.0</mu>", "<mu>0.25</mu>"));
    // Written with the root, a leading slash, or by index: the same element.
    for path in [
        "sdf/world/model[box]/pose",
        "/world/model[1]/pose",
        "world/model[box]/pose",
    ] {
        let out = one(path, "1 2 3 0 0 0").unwrap();
        assert_eq!(
            out,
            WORLD.replace("<pose>0 0 1 0 0 0</pose>", "<pose>1 2 3 0 0 0</pose>"),
            "{path}"
        );
    }
}

#[test]
fn attributes_and_empty_elements_are_written() {
    let out = one("world/physics/@type", "dart").unwrap();
    assert!(out.contains(r#"<physics type="dart">"#), "{out}");
    let out = one("world/model[box]/link[body]/gravity", "false").unwrap();
    assert!(out.contains("<gravity>false</gravity></link>"), "{out}");
    let out = one("world/model[box]/link[other]/gravity", "true").unwrap();
    assert!(out.contains("<gravity>true</gravity>"), "{out}");
    // The result reads as the reader reads it.
    crate::parse_str(&out, None).unwrap();
}

#[test]
fn values_are_escaped() {
    let out = one("world/model[box]/pose", "<&>").unwrap();
    assert!(out.contains("<pose>&lt;&amp;&gt;</pose>"), "{out}");
    let out = one("world/@name", "a\"b").unwrap();
    assert!(out.contains(r#"<world name="a&quot;b">"#), "{out}");
}

#[test]
fn several_overrides_apply_together_and_overlaps_are_refused() {
    let out = apply(
        WORLD,
        &[
            Override::new("world/model[box]/pose", "0 0 5 0 0 0"),
            Override::new("world/model[box]/link[body]/inertial/mass", "3"),
            Override::new("world/physics/max_step_size", "0.002"),
        ],
    )
    .unwrap();
    assert!(out.contains("<pose>0 0 5 0 0 0</pose>"));
    assert!(out.contains("<mass>3</mass>"));
    assert!(out.contains("<max_step_size>0.002</max_step_size>"));
    let e = apply(
        WORLD,
        &[
            Override::new("world/model[box]/pose", "1"),
            Override::new("world/model[1]/pose", "2"),
        ],
    )
    .unwrap_err();
    assert!(matches!(e, OverrideError::Overlap(..)), "{e}");
}

#[test]
fn a_step_matching_nothing_names_the_path_the_step_and_the_candidates() {
    let e = one("world/model[bx]/pose", "1").unwrap_err().to_string();
    assert!(e.contains("override `world/model[bx]/pose`"), "{e}");
    assert!(
        e.contains("`model[bx]` matches nothing in <world name=\"w\">"),
        "{e}"
    );
    assert!(e.contains("`model[ground]`, `model[box]`"), "{e}");
    let e = one("world/model[7]/pose", "1").unwrap_err().to_string();
    assert!(e.contains("`model[7]`"), "{e}");
    // An element not written is not added.
    let e = one("world/model[box]/static", "true")
        .unwrap_err()
        .to_string();
    assert!(e.contains("there is no <static> there"), "{e}");
    assert!(e.contains("does not add one"), "{e}");
    assert!(e.contains("its child elements: pose, link"), "{e}");
    let e = one("world/model[box]/@kind", "x").unwrap_err().to_string();
    assert!(e.contains("its attributes: name"), "{e}");
}

#[test]
fn an_ambiguous_step_lists_the_selectors() {
    let e = one("world/model/pose", "1").unwrap_err();
    let OverrideError::Ambiguous {
        count, candidates, ..
    } = &e
    else {
        panic!("{e}");
    };
    assert_eq!(*count, 2);
    assert_eq!(candidates, "`model[ground]`, `model[box]`");
    assert!(e.to_string().contains("select one by name or index"));
}

#[test]
fn elements_with_children_and_bad_paths_are_refused() {
    let e = one("world/model[box]", "x").unwrap_err().to_string();
    assert!(e.contains("holds child elements (pose, link)"), "{e}");
    for (path, what) in [
        ("", "empty"),
        ("world//model", "empty"),
        ("world/model[box", "closed by `]`"),
        ("world/@name/pose", "must be the last step"),
        ("@name", "needs an element"),
        ("world/mo del", "not an element name"),
        ("world/model[]", "selector is empty"),
    ] {
        let e = one(path, "x").unwrap_err();
        assert!(matches!(e, OverrideError::BadPath { .. }), "{path}: {e}");
        assert!(e.to_string().contains(what), "{path}: {e}");
    }
    let long = "a/".repeat(MAX_PATH_BYTES);
    assert!(one(&long, "x").is_err());
}

#[test]
fn undeclared_prefixes_and_bounds() {
    // An element with an undeclared prefix is reached by its name as written.
    let out = one("world/gz:policies/x", "2").unwrap();
    assert!(out.contains("<gz:policies><x>2</x></gz:policies>"), "{out}");
    let many = vec![Override::new("world/@name", "x"); MAX_OVERRIDES + 1];
    assert_eq!(
        apply(WORLD, &many).unwrap_err(),
        OverrideError::TooMany(MAX_OVERRIDES + 1)
    );
    let big = "1".repeat(MAX_VALUE_BYTES + 1);
    assert!(matches!(
        one("world/model[box]/pose", &big).unwrap_err(),
        OverrideError::ValueTooLong { .. }
    ));
    assert!(matches!(
        apply("<sdf><world>", &[Override::new("world/@name", "x")]).unwrap_err(),
        OverrideError::NotXml(_)
    ));
    // No overrides: the text as it was.
    assert_eq!(apply(WORLD, &[]).unwrap(), WORLD);
}
