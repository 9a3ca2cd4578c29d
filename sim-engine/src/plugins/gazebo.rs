//! Gazebo's names for its systems, and the systems whose work is the engine's own.
//!
//! gz-sim loads a `<plugin filename name>` from the library `filename` (with or without the
//! `lib` prefix and the platform suffix; `ignition-gazebo` in the file name is rewritten to
//! `gz-sim` with a deprecation warning) and instantiates the class `name` in it. Here both
//! spellings are read back to the system's class name: `gz-sim-physics-system`,
//! `libgz-sim8-physics-system.so`, `ignition-gazebo6-physics-system`,
//! `gz::sim::systems::Physics` and `ignition::gazebo::systems::Physics` are all `Physics`.
//! The systems of [`BUILT_IN`] need no library: simcore's engine does their work. The systems
//! that make a sensor type update in gz-sim (`Imu`, `CpuLidar`, ...) are not named here: the
//! sensor libraries declare them (`enabled_by` in `export_plugin!`, see
//! [`Registry::enabling_library`](super::Registry::enabling_library)).

use sim_world::World;

/// A `<plugin>` read as one of gz-sim's systems.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GzSystem {
    /// The system's class name without its namespace (`Physics`, `DiffDrive`).
    pub name: String,
    /// Whether it was spelled with the deprecated `ignition` names.
    pub deprecated: bool,
}

impl GzSystem {
    /// The class name gz-sim's library exports: `gz::sim::systems::NAME`.
    pub fn class(&self) -> String {
        format!("gz::sim::systems::{}", self.name)
    }

    /// Whether simcore does this system's work itself.
    pub fn built_in(&self) -> bool {
        BUILT_IN.iter().any(|(n, _)| *n == self.name)
    }
}

/// The gz-sim systems whose work is the engine's own, with what each does in simcore.
pub const BUILT_IN: &[(&str, &str)] = &[
    ("Physics", "simcore's own physics engine steps the world"),
    (
        "SceneBroadcaster",
        "the world state is on the bus; no scene messages are published",
    ),
    (
        "UserCommands",
        "the world's create, remove and set_pose services (from the factory and truth plugins)",
    ),
    (
        "Sensors",
        "rendering sensors are simulated by simcore's camera plugins",
    ),
    (
        "Thermal",
        "the `<temperature>` of visuals is read with the world, for thermal cameras \
         (on a model, as in gz-sim's rendering, no camera sees it)",
    ),
];

/// The systems server.config gives a world that names none.
pub const DEFAULT_SYSTEMS: &[&str] = &["Physics", "UserCommands", "SceneBroadcaster"];

/// File-name words whose class name is not their words capitalised.
const FILE_WORDS: &[(&str, &str)] = &[
    ("navsat", "NavSat"),
    ("forcetorque", "ForceTorque"),
    ("linearbatteryplugin", "LinearBatteryPlugin"),
    ("imu", "Imu"),
    ("cpu-lidar", "CpuLidar"),
    ("scenebroadcaster", "SceneBroadcaster"),
    ("usercommands", "UserCommands"),
];

/// Whether gz-sim skips this `<plugin>` without a word: the levels carrier (`name="gz::sim"`,
/// usually `filename="dummy"`: gz-sim's SystemLoader reports no missing library for that
/// name) and `__default__`.
pub fn silently_skipped(filename: &str, name: &str) -> bool {
    let n = name.trim();
    filename.trim() == "__default__"
        || n == "__default__"
        || matches!(n, "gz::sim" | "ignition::gazebo")
}

/// The gz-sim system a `<plugin>` names: by its class name when that is a gz-sim class,
/// else by its file name; `None` for anything else.
pub fn gz_system(filename: &str, name: &str) -> Option<GzSystem> {
    from_class(name.trim()).or_else(|| from_file(filename.trim()))
}

fn from_class(name: &str) -> Option<GzSystem> {
    let (rest, deprecated) = if let Some(r) = name.strip_prefix("gz::sim::systems::") {
        (r, false)
    } else {
        (name.strip_prefix("ignition::gazebo::systems::")?, true)
    };
    let valid = !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then(|| GzSystem {
        name: rest.to_string(),
        deprecated,
    })
}

fn from_file(filename: &str) -> Option<GzSystem> {
    let mut f = filename.rsplit(['/', '\\']).next().unwrap_or(filename);
    for ext in [".so", ".dylib", ".dll"] {
        if let Some(s) = f.strip_suffix(ext) {
            f = s;
        }
    }
    let f = f.strip_prefix("lib").unwrap_or(f);
    let (rest, deprecated) = if let Some(r) = f.strip_prefix("gz-sim") {
        (r, false)
    } else {
        (f.strip_prefix("ignition-gazebo")?, true)
    };
    let words = rest
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .strip_prefix('-')?
        .strip_suffix("-system")?;
    if words.is_empty() {
        return None;
    }
    let name = match FILE_WORDS.iter().find(|(w, _)| *w == words) {
        Some((_, n)) => n.to_string(),
        None => words
            .split(['-', '_'])
            .map(|w| {
                let mut c = w.chars();
                c.next()
                    .map(|first| first.to_ascii_uppercase().to_string() + c.as_str())
                    .unwrap_or_default()
            })
            .collect(),
    };
    Some(GzSystem { name, deprecated })
}

/// What a built-in system's `<plugin>` element asks for (its children) that simcore does not
/// do: one line each (the Physics system's engine and solver, the Sensors system's render
/// engine).
pub fn not_applicable(system: &str, sdf: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(sdf).ok();
    let children: Vec<&str> = doc.as_ref().map_or_else(Vec::new, |d| {
        d.root_element()
            .children()
            .filter(|c| c.is_element())
            .map(|c| c.tag_name().name())
            .collect()
    });
    let has = |tag: &str| children.contains(&tag);
    let mut v = Vec::new();
    let mut say = |tag: &str, why: &str| {
        if has(tag) {
            v.push(format!("`<{tag}>` is not applicable: {why}"));
        }
    };
    match system {
        "Physics" => {
            let engine = "simcore steps the world with its own physics engine";
            for tag in ["engine", "dart", "bullet", "solver", "collision_detector"] {
                say(tag, engine);
            }
        }
        "Sensors" => {
            say(
                "render_engine",
                "simcore's camera plugins render without a render engine",
            );
            for tag in ["background_color", "ambient_light"] {
                if has(tag) && color_of(sdf, tag).is_none() {
                    v.push(format!(
                        "`<{tag}>` is not a colour (`r g b` or `r g b a`, each 0 to 1): the \
                         world's <scene> value stays"
                    ));
                }
            }
        }
        _ => {}
    }
    v
}

/// The colour `<tag>` of a `<plugin>` element (`r g b` or `r g b a`, each in 0..=1).
fn color_of(sdf: &str, tag: &str) -> Option<[f32; 4]> {
    let doc = roxmltree::Document::parse(sdf).ok()?;
    let text = doc
        .root_element()
        .children()
        .find(|c| c.is_element() && c.tag_name().name() == tag)?
        .text()?;
    let v: Vec<f32> = text
        .split_whitespace()
        .map(|x| x.parse::<f32>().ok().filter(|x| (0.0..=1.0).contains(x)))
        .collect::<Option<_>>()?;
    match v[..] {
        [r, g, b] => Some([r, g, b, 1.0]),
        [r, g, b, a] => Some([r, g, b, a]),
        _ => None,
    }
}

/// Applies what the world's Sensors system says about the scene its cameras see, as gz-sim's
/// Sensors system does: `<background_color>` and `<ambient_light>` replace the world's
/// `<scene>` background and ambient colours.
pub fn apply_sensors_system(world: &mut World) {
    let sensors = world
        .plugins
        .iter()
        .filter(|p| gz_system(&p.filename, &p.name).is_some_and(|g| g.name == "Sensors"))
        .map(|p| p.sdf.clone())
        .collect::<Vec<_>>();
    for sdf in sensors {
        if let Some(c) = color_of(&sdf, "background_color") {
            world.scene.background = c;
        }
        if let Some(c) = color_of(&sdf, "ambient_light") {
            world.scene.ambient = c;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sys(name: &str, deprecated: bool) -> Option<GzSystem> {
        Some(GzSystem {
            name: name.into(),
            deprecated,
        })
    }

    #[test]
    fn every_spelling_of_a_system_is_the_same_system() {
        for f in [
            "gz-sim-physics-system",
            "libgz-sim-physics-system.so",
            "gz-sim8-physics-system",
            "libgz-sim8-physics-system.dylib",
        ] {
            assert_eq!(gz_system(f, ""), sys("Physics", false), "{f}");
        }
        for f in [
            "ignition-gazebo-physics-system",
            "libignition-gazebo6-physics-system.so",
        ] {
            assert_eq!(gz_system(f, ""), sys("Physics", true), "{f}");
        }
        assert_eq!(
            gz_system("whatever", "gz::sim::systems::Physics"),
            sys("Physics", false)
        );
        assert_eq!(
            gz_system("", "ignition::gazebo::systems::Physics"),
            sys("Physics", true)
        );
    }

    #[test]
    fn file_words_become_class_names() {
        for (f, n) in [
            ("gz-sim-scene-broadcaster-system", "SceneBroadcaster"),
            ("gz-sim-user-commands-system", "UserCommands"),
            ("gz-sim-navsat-system", "NavSat"),
            ("gz-sim-forcetorque-system", "ForceTorque"),
            ("gz-sim-air-pressure-system", "AirPressure"),
            ("gz-sim-linearbatteryplugin-system", "LinearBatteryPlugin"),
            (
                "gz-sim-joint-position-controller-system",
                "JointPositionController",
            ),
            ("gz-sim-imu-system", "Imu"),
        ] {
            assert_eq!(gz_system(f, "").map(|s| s.name), Some(n.to_string()), "{f}");
        }
        assert_eq!(
            gz_system("gz-sim-imu-system", "").map(|s| s.class()),
            Some("gz::sim::systems::Imu".to_string())
        );
    }

    #[test]
    fn other_plugins_are_not_gz_systems() {
        assert_eq!(
            gz_system("libsimcore_plugin_truth.so", "simcore::Truth"),
            None
        );
        assert_eq!(gz_system("gz-sim-system", ""), None);
        assert_eq!(gz_system("gz-simulator", ""), None);
        assert_eq!(gz_system("", "gz::sim::systems::"), None);
    }

    #[test]
    fn built_in_and_skipped() {
        assert!(gz_system("gz-sim-sensors-system", "").unwrap().built_in());
        assert!(
            gz_system("ignition-gazebo-thermal-system", "")
                .unwrap()
                .built_in()
        );
        assert!(
            !gz_system("gz-sim-thermal-sensor-system", "")
                .unwrap()
                .built_in()
        );
        assert!(
            !gz_system("gz-sim-diff-drive-system", "")
                .unwrap()
                .built_in()
        );
        assert!(silently_skipped("dummy", "gz::sim"));
        assert!(silently_skipped("__default__", "x"));
        assert!(silently_skipped("anything", "gz::sim"));
        assert!(!silently_skipped("dummy", "other"));
    }

    #[test]
    fn not_applicable_parameters_are_named() {
        let n = not_applicable(
            "Physics",
            "<plugin><engine><filename>gz-physics-bullet</filename></engine></plugin>",
        );
        assert_eq!(n.len(), 1);
        assert!(n[0].contains("<engine>"));
        let n = not_applicable(
            "Sensors",
            "<plugin><render_engine>ogre2</render_engine></plugin>",
        );
        assert!(n[0].contains("render_engine"));
        assert!(not_applicable("Imu", "<plugin><engine/></plugin>").is_empty());
        // The element's own children: written empty, or in any form; not deeper, nor in text.
        assert_eq!(
            not_applicable("Physics", "<plugin><dart/></plugin>").len(),
            1
        );
        assert!(
            not_applicable(
                "Physics",
                "<plugin><x><engine/></x><!-- <solver> --><y>&lt;dart&gt;</y></plugin>"
            )
            .is_empty()
        );
        assert!(
            not_applicable(
                "Sensors",
                "<plugin><background_color>0.8 0.8 0.8</background_color></plugin>"
            )
            .is_empty()
        );
        assert!(
            not_applicable(
                "Sensors",
                "<plugin><background_color>red</background_color></plugin>"
            )[0]
            .contains("not a colour")
        );
    }

    #[test]
    fn the_sensors_system_sets_the_scene_colours() {
        let mut world = sim_sdf::parse_str(
            r#"<sdf version="1.9"><world name="w">
              <plugin filename="gz-sim-sensors-system" name="gz::sim::systems::Sensors">
                <render_engine>ogre2</render_engine>
                <background_color>1 0 0 1</background_color>
                <ambient_light>0.2 0.2 0.2</ambient_light>
              </plugin>
            </world></sdf>"#,
            None,
        )
        .unwrap();
        apply_sensors_system(&mut world);
        assert_eq!(world.scene.background, [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(world.scene.ambient, [0.2, 0.2, 0.2, 1.0]);
    }
}
