//! Overrides that reach into included models: through `include[NAME]/model/...` and by the
//! included model's name (`model[NAME]/...`), for one include alone, at any depth, with
//! `<experimental:params>`, and the errors that name the included file. Each test writes a
//! world and a `models/` directory in a temporary directory and reads them back through the
//! loader.

use super::support::*;
use crate::overrides::{self, OverriddenLoadError, Override, OverrideError};
use crate::*;
use sim_world::{Link, Model, World};

files_dir!(
    /// A world beside a `models/` directory holding `rover` (which includes `arm`) and `arm`.
    Dir
);

/// The rover: a chassis with a mass, a collision with a friction and an IMU with noise, and
/// an arm it includes.
const ROVER: &str = r#"<model name="rover">
  <link name="chassis">
    <inertial><mass>10</mass></inertial>
    <collision name="body">
      <geometry><box><size>1 1 1</size></box></geometry>
      <surface><friction><ode><mu>0.9</mu></ode></friction></surface>
    </collision>
    <sensor name="imu" type="imu">
      <imu><linear_acceleration><x><noise type="gaussian"><stddev>0.01</stddev></noise></x></linear_acceleration></imu>
    </sensor>
  </link>
  <include>
    <uri>model://arm</uri>
    <name>arm</name>
    <pose>0 0 1 0 0 0</pose>
  </include>
</model>"#;

/// The arm (named `arm_base` in its file, `arm` where the rover includes it).
const ARM: &str = r#"<model name="arm_base">
  <pose>0 0 0.5 0 0 0</pose>
  <link name="forearm"><inertial><mass>1</mass></inertial></link>
</model>"#;

impl Dir {
    /// The models, and `world.sdf` holding `body` in its world.
    fn with_world(body: &str) -> Dir {
        let d = Dir::new();
        for (name, model) in [("rover", ROVER), ("arm", ARM)] {
            d.write(
                &format!("models/{name}/model.config"),
                &format!(
                    "<?xml version=\"1.0\"?>\n<model><name>{name}</name>\
                     <sdf version=\"1.9\">model.sdf</sdf></model>\n"
                ),
            );
            d.write(
                &format!("models/{name}/model.sdf"),
                &format!("<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n{model}\n</sdf>\n"),
            );
        }
        d.write("world.sdf", &doc("1.9", body));
        d
    }

    fn options() -> LoadOptions {
        LoadOptions {
            ignore_env: true,
            ..LoadOptions::default()
        }
    }

    /// The world read with `overrides` (path, value).
    fn load(&self, overrides: &[(&str, &str)]) -> Result<World, OverriddenLoadError> {
        let overrides: Vec<Override> = overrides
            .iter()
            .map(|(p, v)| Override::new(*p, *v))
            .collect();
        overrides::load_with(&self.path("world.sdf"), &Dir::options(), &overrides)
    }

    #[track_caller]
    fn ok(&self, overrides: &[(&str, &str)]) -> World {
        self.load(overrides)
            .unwrap_or_else(|e| panic!("expected success:\n{e}"))
    }

    /// The override error the world gives with `overrides`.
    #[track_caller]
    fn refused(&self, overrides: &[(&str, &str)]) -> OverrideError {
        match self.load(overrides) {
            Ok(_) => panic!("expected an override error for {overrides:?}"),
            Err(OverriddenLoadError::Override(e)) => e,
            Err(OverriddenLoadError::Sdf(e)) => panic!("expected an override error:\n{e}"),
        }
    }
}

fn model<'w>(w: &'w World, name: &str) -> &'w Model {
    w.models
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no model {name}"))
}

fn chassis(m: &Model) -> &Link {
    &m.links[0]
}

fn forearm(m: &Model) -> &Link {
    &m.models[0].links[0]
}

fn mu(m: &Model) -> f64 {
    chassis(m).collisions[0].surface.mu
}

const ONE: &str = "<include><uri>model://rover</uri></include>";

#[test]
fn an_override_reaches_into_an_included_model_by_its_name_or_through_the_include() {
    let d = Dir::with_world(ONE);
    let before = std::fs::read_to_string(d.path("models/rover/model.sdf")).unwrap();
    // As read without overrides.
    let w = d.ok(&[]);
    assert_eq!(chassis(&w.models[0]).inertial.mass, 10.0);
    assert_eq!(mu(&w.models[0]), 0.9);

    let w = d.ok(&[
        ("world/model[rover]/link[chassis]/inertial/mass", "25"),
        (
            "world/include[0]/model/link[chassis]/collision[body]/surface/friction/ode/mu",
            "0.3",
        ),
    ]);
    let rover = model(&w, "rover");
    assert_eq!(chassis(rover).inertial.mass, 25.0);
    assert_eq!(mu(rover), 0.3);
    // By the include's name too, and the included file's model by its own name.
    let w = d.ok(&[(
        "world/include[rover]/model[rover]/link[0]/inertial/mass",
        "7",
    )]);
    assert_eq!(chassis(model(&w, "rover")).inertial.mass, 7.0);
    // The file on disk is unchanged.
    let after = std::fs::read_to_string(d.path("models/rover/model.sdf")).unwrap();
    assert_eq!(before, after);
}

#[test]
fn two_includes_of_one_file_each_get_their_own_values() {
    let d = Dir::with_world(
        "<gravity>0 0 -9.8</gravity>\n\
         <include><uri>model://rover</uri><name>left</name><pose>0 2 0 0 0 0</pose></include>\n\
         <include><uri>model://rover</uri><name>middle</name></include>\n\
         <include><uri>model://rover</uri><name>right</name></include>",
    );
    let w = d.ok(&[
        // A change of length in the world file before the includes.
        ("world/gravity", "0 0 -1.6200000"),
        (
            "world/model[left]/link[chassis]/collision[body]/surface/friction/ode/mu",
            "0.1",
        ),
        (
            "world/include[right]/model/link[chassis]/collision[0]/surface/friction/ode/mu",
            "0.7",
        ),
        ("world/model[right]/link[chassis]/inertial/mass", "40"),
        ("world/include[left]/pose", "0 5 0 0 0 0"),
    ]);
    assert_eq!(w.gravity.z, -1.62);
    let (left, middle, right) = (model(&w, "left"), model(&w, "middle"), model(&w, "right"));
    assert_eq!(mu(left), 0.1);
    assert_eq!(
        mu(middle),
        0.9,
        "the include without overrides reads the file"
    );
    assert_eq!(mu(right), 0.7);
    assert_eq!(chassis(left).inertial.mass, 10.0);
    assert_eq!(chassis(middle).inertial.mass, 10.0);
    assert_eq!(chassis(right).inertial.mass, 40.0);
    // The include's own <pose>.
    assert_eq!(left.pose.position.y, 5.0);
}

/// The example of docs/python.md ("Included models"), with the values as Python writes them.
#[test]
fn the_python_docs_example_reads_as_documented() {
    let d = Dir::with_world(
        "<include><uri>model://rover</uri><name>rover</name><pose>0 0 0 0 0 0</pose></include>",
    );
    let w = d.ok(&[
        (
            "world/model[rover]/link[chassis]/collision[body]/surface/friction/ode/mu",
            "0.4",
        ),
        (
            "world/model[rover]/link[chassis]/sensor[imu]/imu/linear_acceleration/x/noise/stddev",
            "0.02",
        ),
        (
            "world/include[rover]/model/link[chassis]/inertial/mass",
            "12.5",
        ),
        ("world/include[rover]/pose", "1 2 0 0 0 0"),
        (
            "world/model[rover]/model[arm]/link[forearm]/inertial/mass",
            "0.8",
        ),
    ]);
    let rover = model(&w, "rover");
    assert_eq!(mu(rover), 0.4);
    let imu = &chassis(rover).sensors[0];
    assert!(imu.sdf.contains("<stddev>0.02</stddev>"), "{}", imu.sdf);
    assert_eq!(chassis(rover).inertial.mass, 12.5);
    assert_eq!((rover.pose.position.x, rover.pose.position.y), (1.0, 2.0));
    assert_eq!(forearm(rover).inertial.mass, 0.8);
}

#[test]
fn nested_includes_are_reached_the_same_way() {
    let d = Dir::with_world(
        "<include><uri>model://rover</uri><name>a</name></include>\n\
         <include><uri>model://rover</uri><name>b</name></include>",
    );
    let w = d.ok(&[
        ("world/model[a]/model[arm]/link[forearm]/inertial/mass", "3"),
        (
            "world/include[b]/model/include[arm]/model/link[forearm]/inertial/mass",
            "4",
        ),
        // The arm's own pose (its include in the rover writes one, which wins).
        ("world/model[b]/include[arm]/pose", "0 0 2 0 0 0"),
    ]);
    let (a, b) = (model(&w, "a"), model(&w, "b"));
    assert_eq!(a.models[0].name, "arm");
    assert_eq!(forearm(a).inertial.mass, 3.0);
    assert_eq!(forearm(b).inertial.mass, 4.0);
    assert_eq!(a.models[0].pose.position.z, 1.0);
    assert_eq!(b.models[0].pose.position.z, 2.0);
}

#[test]
fn overrides_go_into_an_include_edited_by_experimental_params() {
    let d = Dir::with_world(
        "<include><uri>model://rover</uri>\n<experimental:params>\n\
         <link element_id=\"chassis\" action=\"modify\"><inertial><mass>12</mass></inertial></link>\n\
         </experimental:params>\n</include>",
    );
    let w = d.ok(&[
        (
            "world/model[rover]/link[chassis]/collision[body]/surface/friction/ode/mu",
            "0.2",
        ),
        (
            "world/model[rover]/model[arm]/link[forearm]/inertial/mass",
            "6",
        ),
    ]);
    let rover = model(&w, "rover");
    assert_eq!(chassis(rover).inertial.mass, 12.0, "the params' edit");
    assert_eq!(mu(rover), 0.2);
    assert_eq!(forearm(rover).inertial.mass, 6.0);
}

#[test]
fn a_step_matching_nothing_in_an_included_file_names_the_file_and_the_candidates() {
    let d = Dir::with_world(ONE);
    let e = d.refused(&[("world/model[rover]/link[wheel]/inertial/mass", "1")]);
    let OverrideError::NoMatch {
        step, file, within, ..
    } = &e
    else {
        panic!("{e}");
    };
    assert_eq!(step, "link[wheel]");
    assert_eq!(within, "<model name=\"rover\">");
    assert_eq!(
        file.as_deref(),
        Some(d.path("models/rover/model.sdf").as_path())
    );
    let text = e.to_string();
    assert!(
        text.contains("override `world/model[rover]/link[wheel]/inertial/mass`"),
        "{text}"
    );
    assert!(text.contains("models/rover/model.sdf"), "{text}");
    assert!(text.contains("`link[chassis]`"), "{text}");

    // In a nested include's file.
    let e = d
        .refused(&[(
            "world/model[rover]/model[arm]/link[forearm]/inertial/ixx",
            "1",
        )])
        .to_string();
    assert!(e.contains("`ixx` matches nothing in <inertial>"), "{e}");
    assert!(e.contains("models/arm/model.sdf"), "{e}");
    assert!(e.contains("its child elements: mass"), "{e}");

    // Past an include, only what the included file has: its top element is a model.
    let e = d
        .refused(&[("world/include[0]/light/pose", "1")])
        .to_string();
    assert!(e.contains("there is no <light> there"), "{e}");
    assert!(e.contains("its child elements: model"), "{e}");
}

#[test]
fn an_include_step_that_is_not_an_include_is_refused_with_what_is_there() {
    let d = Dir::with_world(
        "<model name=\"ground\"><static>true</static><link name=\"l\"/></model>\n\
         <include><uri>model://rover</uri><name>left</name><pose>0 2 0 0 0 0</pose></include>\n\
         <include><uri>model://rover</uri></include>",
    );
    // A model written in the world, named as an include.
    let e = d.refused(&[("world/include[ground]/model/static", "false")]);
    let text = e.to_string();
    assert!(matches!(e, OverrideError::NoMatch { .. }), "{text}");
    assert!(
        text.contains("`include[ground]` matches nothing in <world name=\"w\">"),
        "{text}"
    );
    assert!(text.contains("`include[left]`, `include[rover]`"), "{text}");
    assert!(text.contains("reach it as `model[ground]`"), "{text}");
    // A model name neither written nor included lists both kinds.
    let e = d
        .refused(&[("world/model[lft]/link[chassis]/inertial/mass", "1")])
        .to_string();
    assert!(e.contains("its <model> elements: `model[ground]`"), "{e}");
    assert!(
        e.contains("the models its includes bring in: `model[left]`, `model[rover]`"),
        "{e}"
    );
    // A step into an included file after an element that is not an include.
    let e = d
        .refused(&[("world/model[ground]/model/link[l]/@name", "x")])
        .to_string();
    assert!(e.contains("there is no <model> there"), "{e}");
    // The include's own pose, which replaces the model's, is not reached by the model's name.
    let e = d.refused(&[("world/model[left]/pose", "0 0 1 0 0 0")]);
    let OverrideError::Shadowed {
        include_path,
        model_path,
        ..
    } = &e
    else {
        panic!("{e}");
    };
    assert_eq!(include_path, "world/include[left]/pose");
    assert_eq!(model_path, "world/include[left]/model/pose");
    // Without a <pose> in the include, the model's is the one used: it is reached.
    let w = d.ok(&[("world/model[rover]/@name", "rover2")]);
    assert_eq!(model(&w, "rover2").links.len(), 1);
}

#[test]
fn two_includes_of_one_name_and_overlaps_in_an_included_file_are_refused() {
    let d = Dir::with_world(
        "<include><uri>model://rover</uri></include>\n<include><uri>model://rover</uri></include>",
    );
    let e = d.refused(&[("world/model[rover]/link[chassis]/inertial/mass", "1")]);
    let OverrideError::Ambiguous {
        count, candidates, ..
    } = &e
    else {
        panic!("{e}");
    };
    assert_eq!(*count, 2);
    assert_eq!(candidates, "`include[0]`, `include[1]`");
    let e = d.refused(&[
        ("world/include[0]/model/link[chassis]/inertial/mass", "1"),
        ("world/include[0]/model/link[0]/inertial/mass", "2"),
    ]);
    assert!(matches!(e, OverrideError::Overlap(..)), "{e}");
}

#[test]
fn check_finds_every_error_without_reading_the_world_and_apply_needs_the_file() {
    let d = Dir::with_world(ONE);
    let path = d.path("world.sdf");
    let good = [Override::new(
        "world/model[rover]/model[arm]/link[forearm]/inertial/mass",
        "2",
    )];
    overrides::check(&path, &Dir::options(), &good).unwrap();
    let bad = [Override::new(
        "world/model[rover]/model[arm]/link[hand]/inertial/mass",
        "2",
    )];
    let e = overrides::check(&path, &Dir::options(), &bad)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`link[hand]`") && e.contains("models/arm/model.sdf"),
        "{e}"
    );
    // An include whose file cannot be found is the reader's error, at its <uri>.
    d.write(
        "world.sdf",
        &doc("1.9", "<include><uri>model://nowhere</uri></include>"),
    );
    let e = overrides::check(
        &path,
        &Dir::options(),
        &[Override::new("world/include[0]/model/@name", "x")],
    )
    .unwrap_err();
    let OverriddenLoadError::Sdf(e) = e else {
        panic!("{e}");
    };
    assert_eq!(e.kind, ErrorKind::NotFound, "{}", e.render(None));
    assert!(e.message.contains("nowhere"), "{}", e.render(None));
    // The text alone cannot reach into an included file.
    let text = doc("1.9", ONE);
    let e = overrides::apply(&text, &[Override::new("world/include[0]/model/@name", "x")]);
    assert!(matches!(e, Err(OverrideError::Included { .. })), "{e:?}");
}
