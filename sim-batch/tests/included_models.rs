//! A sweep over a value inside a model the world includes from its `models/` directory: the
//! path is checked in the included file before anything runs, and each run reads its own
//! value (the sweep read, then each run simulated in this process).

use std::path::Path;

use sim_batch::{Status, run_one, sweep};

/// A crate dropped onto the ground, included from `models/crate`.
const CRATE: &str = r#"<?xml version="1.0"?>
<sdf version="1.9">
  <model name="crate">
    <pose>0 0 2 0 0 0</pose>
    <link name="body">
      <inertial><mass>1.0</mass></inertial>
      <collision name="collision">
        <geometry><box><size>0.2 0.2 0.2</size></box></geometry>
      </collision>
    </link>
  </model>
</sdf>
"#;

const WORLD: &str = r#"<?xml version="1.0"?>
<sdf version="1.9">
  <world name="drop">
    <physics type="ode"><max_step_size>0.001</max_step_size></physics>
    <model name="ground">
      <static>true</static>
      <link name="plane">
        <collision name="collision">
          <geometry><plane><normal>0 0 1</normal><size>20 20</size></plane></geometry>
        </collision>
      </link>
    </model>
    <include><uri>model://crate</uri></include>
  </world>
</sdf>
"#;

/// The world, its model and a sweep file holding `sweep` in a new folder.
fn folder(sweep: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "models/crate/model.config",
        "<?xml version=\"1.0\"?>\n<model><name>crate</name><sdf version=\"1.9\">model.sdf</sdf></model>\n",
    );
    write("models/crate/model.sdf", CRATE);
    write("world.sdf", WORLD);
    write("sweep.toml", sweep);
    dir
}

const SWEEP: &str = r#"
worlds = ["world.sdf"]
duration = 0.8

[[override]]
path = "world/model[crate]/pose"
values = ["0 0 0.3 0 0 0", [0, 0, 20, 0, 0, 0]]

[[check]]
name = "landed"
model = "crate"
within = 0.05
of = [0, 0, 0.1]
"#;

/// The pose of the included crate is swept: dropped from 0.3 m it lands, from 20 m it does
/// not; the model file is left as it was.
#[test]
fn a_sweep_varies_a_value_inside_an_included_model() {
    let dir = folder(SWEEP);
    let s = sweep::read(&dir.path().join("sweep.toml")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.runs.len(), 2);
    let runs = dir.path().join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    let metrics: Vec<_> = s
        .runs
        .iter()
        .map(|spec| run_one(spec, &runs, 1).unwrap())
        .collect();
    for m in &metrics {
        assert_eq!(m.steps, 800, "{m:?}");
        assert_eq!(m.checks.len(), 1, "{m:?}");
    }
    let statuses: Vec<Status> = metrics.iter().map(|m| m.status).collect();
    assert_eq!(statuses, [Status::Passed, Status::Failed], "{metrics:#?}");
    assert!(!metrics[1].checks[0].passed, "{:?}", metrics[1].checks);
    let model = std::fs::read_to_string(dir.path().join("models/crate/model.sdf")).unwrap();
    assert_eq!(model, CRATE);
}

/// A path that reaches nothing in the included file is refused when the sweep is read, at
/// its line, naming the included file and what it has.
#[test]
fn a_path_missing_from_the_included_model_is_refused_with_its_line() {
    let dir = folder(
        "worlds = [\"world.sdf\"]\nduration = 0.8\n\n[[override]]\n\
         path = \"world/model[crate]/link[lid]/inertial/mass\"\nvalues = [2.0]\n",
    );
    let e = sweep::read(&dir.path().join("sweep.toml")).unwrap_err();
    assert_eq!(e.line, 4, "{e}");
    let included = Path::new("models").join("crate").join("model.sdf");
    for words in [
        "override `world/model[crate]/link[lid]/inertial/mass`",
        "`link[lid]` matches nothing in <model name=\"crate\">",
        included.to_str().unwrap(),
        "`link[body]`",
    ] {
        assert!(e.message.contains(words), "{words}: {e}");
    }
}
