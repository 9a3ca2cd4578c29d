//! `<include>`: every URI form, the search order, `model.config`, overrides, merging, errors
//! inside included files, cycles, network URIs, reading each file once, and included lights.
//! Each test builds its files in a temporary directory.

use super::support::*;
use crate::*;
use std::f64::consts::FRAC_PI_2;

use crate::document::load_world;
use crate::load::Loader;
use sim_world::{Quat, World};

files_dir!(
    /// A directory tree of SDF files for one test.
    Tree
);

impl Tree {
    /// A model directory `dir` with a model.config naming model.sdf, holding `model`.
    fn model_dir(&self, dir: &str, version: &str, model: &str) {
        self.write(
            &format!("{dir}/model.config"),
            &format!("<?xml version=\"1.0\"?>\n<model><name>{dir}</name><sdf version=\"{version}\">model.sdf</sdf></model>\n"),
        );
        self.write(&format!("{dir}/model.sdf"), &sdf(version, model));
    }

    /// Options searching `dirs` (relative to the tree) and not the environment.
    fn options(&self, dirs: &[&str]) -> LoadOptions {
        LoadOptions {
            resource_paths: dirs.iter().map(|d| self.path(d)).collect(),
            ignore_env: true,
            ..LoadOptions::default()
        }
    }

    /// Loads the world at `rel` searching `dirs`.
    fn load(&self, rel: &str, dirs: &[&str]) -> Result<World, SdfError> {
        load_with(&self.path(rel), &self.options(dirs))
    }

    #[track_caller]
    fn ok(&self, rel: &str, dirs: &[&str]) -> World {
        self.load(rel, dirs)
            .unwrap_or_else(|e| panic!("expected success:\n{}", e.render(None)))
    }

    #[track_caller]
    fn err(&self, rel: &str, dirs: &[&str]) -> SdfError {
        match self.load(rel, dirs) {
            Ok(w) => panic!("expected an error, got {w:#?}"),
            Err(e) => e,
        }
    }
}

/// An SDF document of `version` holding `body`.
fn sdf(version: &str, body: &str) -> String {
    format!("<?xml version=\"1.0\"?>\n<sdf version=\"{version}\">\n{body}\n</sdf>\n")
}

/// A world document of `version` holding `body`.
fn world(version: &str, body: &str) -> String {
    sdf(version, &format!("<world name=\"w\">\n{body}\n</world>"))
}

/// A model `name` with one link `link` at `link_pose`, and its own `pose`.
fn boxy(name: &str, pose: &str, link: &str) -> String {
    format!(
        "<model name=\"{name}\">\n  <pose>{pose}</pose>\n  <link name=\"{link}\">\n    <pose>1 0 0 0 0 0</pose>\n  </link>\n</model>"
    )
}

fn names(w: &World) -> Vec<&str> {
    w.models.iter().map(|m| m.name.as_str()).collect()
}

#[test]
fn every_uri_form_includes_a_model() {
    let t = Tree::new();
    t.model_dir("lib/robot", "1.9", &boxy("robot", "0 0 1 0 0 0", "base"));
    t.write(
        "w/parts/arm.sdf",
        &sdf("1.9", &boxy("arm", "0 0 0 0 0 0", "l")),
    );
    t.model_dir("w/local", "1.9", &boxy("local", "0 0 0 0 0 0", "l"));
    let abs = t.path("w/parts/arm.sdf");
    let body = format!(
        "<include><uri>model://robot</uri><name>a</name></include>\n\
         <include><uri>robot</uri><name>b</name></include>\n\
         <include><uri>model://robot/model.sdf</uri><name>c</name></include>\n\
         <include><uri>parts/arm.sdf</uri><name>d</name></include>\n\
         <include><uri>file://parts/arm.sdf</uri><name>e</name></include>\n\
         <include><uri>file://{}</uri><name>f</name></include>\n\
         <include><uri>{}</uri><name>g</name></include>\n\
         <include><uri>local</uri><name>h</name></include>\n\
         <include><uri>./local/</uri><name>i</name></include>",
        abs.display(),
        abs.display()
    );
    t.write("w/world.sdf", &world("1.9", &body));
    let w = t.ok("w/world.sdf", &["lib"]);
    assert_eq!(names(&w), ["a", "b", "c", "d", "e", "f", "g", "h", "i"]);
    for m in &w.models[..3] {
        assert_eq!(m.links[0].name, "base");
        // No <pose> in the include: the model keeps its own.
        assert_pose(&m.pose, [0.0, 0.0, 1.0], Quat::IDENTITY);
        // Spans point into the included file.
        let file = m.span.file.as_deref().unwrap();
        assert!(file.ends_with("lib/robot/model.sdf"), "{file:?}");
    }
    for m in &w.models[3..7] {
        assert_eq!(m.links[0].name, "l");
    }
}

#[test]
fn the_search_path_is_searched_in_order() {
    let t = Tree::new();
    // The same model name in three places, each with a different link name.
    t.model_dir(
        "first/thing",
        "1.9",
        &boxy("thing", "0 0 0 0 0 0", "from_first"),
    );
    t.model_dir(
        "w/models/thing",
        "1.9",
        &boxy("thing", "0 0 0 0 0 0", "from_near"),
    );
    t.model_dir(
        "models/thing",
        "1.9",
        &boxy("thing", "0 0 0 0 0 0", "from_far"),
    );
    t.model_dir(
        "last/thing",
        "1.9",
        &boxy("thing", "0 0 0 0 0 0", "from_last"),
    );
    t.model_dir(
        "last/only_last",
        "1.9",
        &boxy("only_last", "0 0 0 0 0 0", "l"),
    );
    t.write(
        "w/sub/world.sdf",
        &world(
            "1.9",
            "<include><uri>model://thing</uri></include>\n<include><uri>model://only_last</uri></include>",
        ),
    );
    let link = |o: &LoadOptions| {
        let w = load_with(&t.path("w/sub/world.sdf"), o).unwrap();
        w.models[0].links[0].name.clone()
    };
    let mut o = t.options(&["first"]);
    o.fallback_resource_paths = vec![t.path("last")];
    assert_eq!(link(&o), "from_first");
    o.resource_paths.clear();
    // `models/` directories at or above the including file, the nearest first.
    assert_eq!(link(&o), "from_near");
    std::fs::remove_dir_all(t.path("w/models")).unwrap();
    assert_eq!(link(&o), "from_far");
    std::fs::remove_dir_all(t.path("models")).unwrap();
    assert_eq!(link(&o), "from_last");
}

#[test]
fn the_environment_variables_are_read_after_the_callers_directories() {
    let t = Tree::new();
    t.model_dir("env/thing", "1.9", &boxy("thing", "0 0 0 0 0 0", "l"));
    let env = t.path("env").into_os_string();
    let path =
        sim_world::resources::ResourcePath::new(&[t.path("a")], &[None, Some(&env), None], &[]);
    assert_eq!(path.dirs(None), [t.path("a"), t.path("env")]);
    assert_eq!(
        path.resolve("model://thing", None).unwrap(),
        t.path("env/thing")
    );
}

#[test]
fn model_config_chooses_the_newest_version_this_reader_reads() {
    let t = Tree::new();
    t.write(
        "lib/can/model.config",
        "<model><name>can</name>\
         <sdf version='1.4'>model-1_4.sdf</sdf>\
         <sdf version='1.11'>model-1_11.sdf</sdf>\
         <sdf version='100.0'>model-100.sdf</sdf></model>",
    );
    t.write(
        "lib/can/model-1_4.sdf",
        &sdf("1.4", &boxy("can", "0 0 0 0 0 0", "old")),
    );
    t.write(
        "lib/can/model-1_11.sdf",
        &sdf("1.11", &boxy("can", "0 0 0 0 0 0", "new")),
    );
    t.write(
        "lib/can/model-100.sdf",
        "<sdf version='100.0'><model name='can'/></sdf>",
    );
    t.write(
        "world.sdf",
        &world("1.6", "<include><uri>model://can</uri></include>"),
    );
    let w = t.ok("world.sdf", &["lib"]);
    assert_eq!(w.models[0].links[0].name, "new");

    // A model directory without model.config is refused at the include.
    t.write(
        "lib/bare/model.sdf",
        &sdf("1.9", &boxy("bare", "0 0 0 0 0 0", "l")),
    );
    let text = world("1.6", "<include>\n<uri>bare</uri>\n</include>");
    t.write("world.sdf", &text);
    let e = t.err("world.sdf", &["lib"]);
    assert_eq!(e.kind, ErrorKind::NotFound, "{}", e.render(None));
    assert_eq!(e.line, line_of(&text, "<uri>bare"));
    assert!(e.message.contains("no model.config"), "{}", e.message);
    assert!(e.hint.contains("model.sdf"), "{}", e.hint);

    // A malformed model.config is reported in that file, from the include.
    t.write(
        "lib/broken/model.config",
        "<model>\n<sdf version='1.9'>model.sdf</sdf>\n",
    );
    t.write(
        "world.sdf",
        &world("1.6", "<include><uri>broken</uri></include>"),
    );
    let e = t.err("world.sdf", &["lib"]);
    assert_eq!(e.kind, ErrorKind::Xml, "{}", e.render(None));
    assert!(e.file.as_ref().unwrap().ends_with("broken/model.config"));
    assert_eq!(e.included_from.len(), 1);
}

#[test]
fn include_overrides_name_pose_static_and_plugins() {
    let t = Tree::new();
    t.model_dir(
        "lib/robot",
        "1.6",
        "<model name=\"robot\"><pose>0 0 1 0 0 0</pose><link name=\"base\"/>\
         <plugin filename=\"own\" name=\"own::Plugin\"/></model>",
    );
    // Degrees are a 1.9 rule of the including file; the included file is 1.6.
    let text = world(
        "1.9",
        "<include>\n<uri>model://robot</uri>\n<name>r2</name>\n\
         <pose degrees=\"true\">1 2 3 0 0 90</pose>\n<static>true</static>\n\
         <plugin filename=\"extra\" name=\"extra::Plugin\"><gain>2</gain></plugin>\n</include>\n\
         <include><uri>model://robot</uri></include>",
    );
    t.write("world.sdf", &text);
    let w = t.ok("world.sdf", &["lib"]);
    assert_eq!(names(&w), ["r2", "robot"]);
    let (r2, plain) = (&w.models[0], &w.models[1]);
    assert_pose(
        &r2.pose,
        [1.0, 2.0, 3.0],
        Quat::from_rpy(0.0, 0.0, FRAC_PI_2),
    );
    assert!(r2.is_static);
    let plugins: Vec<&str> = r2.plugins.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(plugins, ["own::Plugin", "extra::Plugin"]);
    assert!(r2.plugins[1].sdf.contains("<gain>2</gain>"));
    // The include's plugin was written in the world file.
    assert!(
        r2.plugins[1]
            .span
            .file
            .as_deref()
            .unwrap()
            .ends_with("world.sdf")
    );
    // The other include of the same file is untouched by the first one's overrides.
    assert_pose(&plain.pose, [0.0, 0.0, 1.0], Quat::IDENTITY);
    assert!(!plain.is_static);
    assert_eq!(plain.plugins.len(), 1);

    // Two includes ending with the same name are duplicates.
    let text = world(
        "1.9",
        "<include><uri>model://robot</uri></include>\n<include> <!-- again -->\n<uri>model://robot</uri></include>",
    );
    t.write("world.sdf", &text);
    let e = t.err("world.sdf", &["lib"]);
    assert_eq!(e.kind, ErrorKind::Duplicate, "{}", e.render(None));
    assert_eq!(e.line, line_of(&text, "again"));
    assert!(e.message.contains("\"robot\""), "{}", e.message);

    // A bad override name.
    let text = world(
        "1.9",
        "<include><uri>robot</uri><name>a::b</name></include>",
    );
    t.write("world.sdf", &text);
    let e = t.err("world.sdf", &["lib"]);
    assert_eq!(e.kind, ErrorKind::Invalid);
    assert!(e.message.contains("::"), "{}", e.message);
}

#[test]
fn includes_nest_inside_models_and_included_files() {
    let t = Tree::new();
    t.model_dir("lib/wheel", "1.6", &boxy("wheel", "0 0 0 0 0 0", "rim"));
    // A model that itself includes another, with a relative path beside its own file.
    t.model_dir(
        "lib/cart",
        "1.7",
        "<model name=\"cart\"><link name=\"body\"/>\
         <include><uri>model://wheel</uri><name>left</name><pose>0 1 0 0 0 0</pose></include>\
         <include><uri>parts/axle.sdf</uri></include></model>",
    );
    t.write(
        "lib/cart/parts/axle.sdf",
        &sdf("1.7", &boxy("axle", "0 0 0 0 0 0", "bar")),
    );
    t.write(
        "world.sdf",
        &world(
            "1.9",
            "<model name=\"outer\"><link name=\"l\"/>\
             <include><uri>cart</uri><pose>5 0 0 0 0 0</pose></include></model>",
        ),
    );
    let w = t.ok("world.sdf", &["lib"]);
    let mut scoped = Vec::new();
    w.visit_models(|s, _| scoped.push(s.to_string()));
    assert_eq!(
        scoped,
        [
            "outer",
            "outer::cart",
            "outer::cart::left",
            "outer::cart::axle"
        ]
    );
    let cart = &w.models[0].models[0];
    assert_pose(&cart.pose, [5.0, 0.0, 0.0], Quat::IDENTITY);
    assert_pose(&cart.models[0].pose, [0.0, 1.0, 0.0], Quat::IDENTITY);
}

#[test]
fn an_included_file_keeps_its_own_version_rules() {
    let t = Tree::new();
    // `::` is allowed in names before SDF 1.8; this file is 1.7, so it is allowed.
    t.model_dir(
        "lib/old",
        "1.7",
        "<model name=\"old\"><link name=\"a::b\"/></model>",
    );
    t.write(
        "world.sdf",
        &world("1.12", "<include><uri>old</uri></include>"),
    );
    let w = t.ok("world.sdf", &["lib"]);
    assert_eq!(w.models[0].links[0].name, "a::b");
    // The same model written as 1.8 is refused, in its file.
    t.model_dir(
        "lib/old",
        "1.8",
        "<model name=\"old\"><link name=\"a::b\"/></model>",
    );
    let e = t.err("world.sdf", &["lib"]);
    assert!(e.message.contains("contains `::`"), "{}", e.render(None));
    assert!(e.file.as_ref().unwrap().ends_with("lib/old/model.sdf"));
}

#[test]
fn errors_inside_included_files_name_the_file_and_the_include_site() {
    let t = Tree::new();
    let inner = sdf(
        "1.9",
        "<model name=\"bad\">\n  <link name=\"l\">\n    <inertial><mass>-1</mass></inertial>\n  </link>\n</model>",
    );
    t.write("lib/bad/model.sdf", &inner);
    t.write(
        "lib/bad/model.config",
        "<model><sdf version='1.9'>model.sdf</sdf></model>",
    );
    // Included through a model that is itself included.
    let middle = sdf(
        "1.9",
        "<model name=\"mid\">\n<link name=\"l\"/>\n<include>\n<uri>bad</uri>\n</include>\n</model>",
    );
    t.write("lib/mid/model.sdf", &middle);
    t.write(
        "lib/mid/model.config",
        "<model><sdf version='1.9'>model.sdf</sdf></model>",
    );
    let outer = world("1.9", "\n\n<include>\n<uri>mid</uri>\n</include>");
    t.write("world.sdf", &outer);
    let e = t.err("world.sdf", &["lib"]);
    assert!(e.file.as_ref().unwrap().ends_with("lib/bad/model.sdf"));
    assert_eq!(e.line, line_of(&inner, "<mass>"));
    let sites: Vec<(String, u32)> = e
        .included_from
        .iter()
        .map(|s| {
            let f = s.file.as_deref().unwrap();
            (
                f.file_name().unwrap().to_string_lossy().into_owned(),
                s.line,
            )
        })
        .collect();
    assert_eq!(
        sites,
        [
            ("model.sdf".to_string(), line_of(&middle, "<include>")),
            ("world.sdf".to_string(), line_of(&outer, "<include>")),
        ]
    );
    let report = e.render(None);
    assert!(report.contains("<mass>-1</mass>"), "{report}");
    assert!(
        report.contains(&format!("= included from {}", e.included_from[1])),
        "{report}"
    );
    assert!(e.to_string().contains("included from"), "{}", e.to_string());

    // XML errors in the included file too.
    t.write(
        "lib/bad/model.sdf",
        "<sdf version='1.9'>\n<model name='x'>\n</sdf>",
    );
    let e = t.err("world.sdf", &["lib"]);
    assert_eq!(e.kind, ErrorKind::Xml);
    assert!(e.file.as_ref().unwrap().ends_with("lib/bad/model.sdf"));
    assert_eq!(e.included_from.len(), 2);
}

#[test]
fn unresolvable_and_network_uris_say_where_to_look() {
    let t = Tree::new();
    std::fs::create_dir_all(t.path("lib")).unwrap();
    let text = world("1.9", "<include>\n<uri>model://nowhere</uri>\n</include>");
    t.write("w/world.sdf", &text);
    let e = t.err("w/world.sdf", &["lib"]);
    assert_eq!(e.kind, ErrorKind::NotFound);
    assert_eq!(
        (e.line, e.column),
        (line_of(&text, "<uri>"), 6),
        "{}",
        e.render(None)
    );
    assert!(e.message.contains("model://nowhere"), "{}", e.message);
    assert!(
        e.message.contains(&t.path("lib").display().to_string()),
        "the searched directories are listed: {}",
        e.message
    );
    assert!(e.hint.contains("SIMCORE_RESOURCE_PATH"), "{}", e.hint);

    let text = world(
        "1.9",
        "<include>\n<uri>https://fuel.gazebosim.org/1.0/openrobotics/models/coke can</uri>\n</include>",
    );
    t.write("w/world.sdf", &text);
    let e = t.err("w/world.sdf", &["lib"]);
    assert_eq!(e.kind, ErrorKind::Unsupported);
    assert!(e.message.contains("does not download"), "{}", e.message);
    assert!(e.hint.contains("gz fuel download -u"), "{}", e.hint);
    assert!(
        e.hint.contains(&t.path("lib").display().to_string()),
        "{}",
        e.hint
    );

    let text = world("1.9", "<include><name>x</name></include>");
    t.write("w/world.sdf", &text);
    assert_eq!(t.err("w/world.sdf", &[]).kind, ErrorKind::Missing);
}

#[test]
fn include_cycles_are_detected() {
    let t = Tree::new();
    t.write(
        "a.sdf",
        &sdf(
            "1.9",
            "<model name=\"a\"><link name=\"l\"/><include><uri>b.sdf</uri></include></model>",
        ),
    );
    t.write(
        "b.sdf",
        &sdf(
            "1.9",
            "<model name=\"b\"><link name=\"l\"/><include><uri>a.sdf</uri></include></model>",
        ),
    );
    t.write(
        "world.sdf",
        &world("1.9", "<include><uri>a.sdf</uri></include>"),
    );
    let e = t.err("world.sdf", &[]);
    assert_eq!(e.kind, ErrorKind::Invalid);
    assert!(e.message.contains("include cycle"), "{}", e.render(None));
    assert!(e.message.contains("a.sdf -> "), "{}", e.message);
    // A world that includes itself.
    t.write(
        "self.sdf",
        &world("1.9", "<include><uri>self.sdf</uri></include>"),
    );
    let e = t.err("self.sdf", &[]);
    assert!(e.message.contains("include cycle"), "{}", e.render(None));
}

#[test]
fn a_model_included_many_times_is_read_once() {
    let t = Tree::new();
    t.model_dir("lib/crate", "1.9", &boxy("crate", "0 0 0 0 0 0", "l"));
    t.model_dir(
        "lib/pallet",
        "1.9",
        "<model name=\"pallet\"><link name=\"l\"/>\
         <include><uri>crate</uri><name>c1</name></include>\
         <include><uri>model://crate</uri><name>c2</name></include></model>",
    );
    let mut body = String::new();
    for i in 0..10 {
        body.push_str(&format!(
            "<include><uri>model://crate</uri><name>c{i}</name><pose>{i} 0 0 0 0 0</pose></include>\n"
        ));
    }
    body.push_str("<include><uri>pallet</uri><name>p1</name></include>\n");
    body.push_str("<include><uri>lib/pallet/model.sdf</uri><name>p2</name></include>\n");
    let path = t.write("world.sdf", &world("1.9", &body));
    let loader = Loader::new(&t.options(&["lib"]));
    let w = load_world(&path, &loader).unwrap();
    assert_eq!(w.models.len(), 12);
    for (i, m) in w.models[..10].iter().enumerate() {
        assert_eq!(m.name, format!("c{i}"));
        assert_pose(&m.pose, [i as f64, 0.0, 0.0], Quat::IDENTITY);
    }
    assert_eq!(w.models[11].models[1].name, "c2");
    // crate/model.sdf and pallet/model.sdf, once each.
    assert_eq!(loader.reads(), 2);
}

#[test]
fn merge_folds_the_model_into_its_parent() {
    let t = Tree::new();
    t.model_dir(
        "lib/arm",
        "1.9",
        "<model name=\"arm\">\
           <pose>0 0 1 0 0 0</pose>\
           <link name=\"shoulder\"><pose>1 0 0 0 0 0</pose></link>\
           <link name=\"elbow\"><pose>2 0 0 0 0 0</pose></link>\
           <joint name=\"j\" type=\"revolute\"><parent>shoulder</parent><child>elbow</child>\
             <axis><xyz expressed_in=\"__model__\">1 0 0</xyz></axis></joint>\
           <model name=\"tool\"><pose>3 0 0 0 0 0</pose><link name=\"tip\"/></model>\
           <plugin filename=\"arm_ctl\" name=\"arm::Controller\"/>\
         </model>",
    );
    let text = world(
        "1.9",
        "<model name=\"robot\"><link name=\"base\"/>\
         <include merge=\"true\"><uri>arm</uri><pose>0 0 0 0 0 1.5707963267948966</pose>\
           <plugin filename=\"extra\" name=\"extra::P\"/></include>\
         <joint name=\"mount\" type=\"fixed\"><parent>base</parent><child>shoulder</child></joint>\
         </model>",
    );
    t.write("world.sdf", &text);
    let w = t.ok("world.sdf", &["lib"]);
    let robot = &w.models[0];
    let links: Vec<&str> = robot.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(links, ["base", "shoulder", "elbow"]);
    let yaw = Quat::from_rpy(0.0, 0.0, FRAC_PI_2);
    assert_pose(&robot.links[1].pose, [0.0, 1.0, 0.0], yaw);
    assert_pose(&robot.links[2].pose, [0.0, 2.0, 0.0], yaw);
    assert_eq!(robot.models.len(), 1);
    assert_eq!(robot.models[0].name, "tool");
    assert_pose(&robot.models[0].pose, [0.0, 3.0, 0.0], yaw);
    let joints: Vec<&str> = robot.joints.iter().map(|j| j.name.as_str()).collect();
    // In document order: the merged parts where the <include> is.
    assert_eq!(joints, ["j", "mount"]);
    // The axis was in the merged model's frame: now written in the joint frame, which
    // turned with the elbow (yaw), so in the parent's frame it is the parent's y.
    let axis = robot.joints[0].axis.as_ref().unwrap();
    assert_eq!(axis.expressed_in, "");
    assert!(
        (axis.xyz_in_joint.x - 1.0).abs() < 1e-9 && axis.xyz_in_joint.y.abs() < 1e-9,
        "{axis:?}"
    );
    // As libsdformat, a frame stands for the merged model's frame.
    let merged = robot
        .frames
        .iter()
        .find(|f| f.name == "_merged__arm__model__")
        .expect("the merged model's frame");
    assert_eq!(merged.attached_to, "shoulder");
    assert_pose(&merged.pose, [0.0, 0.0, 0.0], yaw);
    let plugins: Vec<&str> = robot.plugins.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(plugins, ["arm::Controller", "extra::P"]);

    // Without an include pose, the merged model's own pose places its parts.
    let text = world(
        "1.9",
        "<model name=\"robot\"><include merge=\"true\"><uri>arm</uri></include></model>",
    );
    t.write("world.sdf", &text);
    let w = t.ok("world.sdf", &["lib"]);
    assert_pose(&w.models[0].links[0].pose, [1.0, 0.0, 1.0], Quat::IDENTITY);

    // A name clash between the parent and the merged parts.
    let text = world(
        "1.9",
        "<model name=\"robot\"><link name=\"elbow\"/>\n<include merge=\"true\"><uri>arm</uri></include></model>",
    );
    t.write("world.sdf", &text);
    let e = t.err("world.sdf", &["lib"]);
    assert_eq!(e.kind, ErrorKind::Duplicate, "{}", e.render(None));
    assert!(
        e.message.contains("<link> named \"elbow\""),
        "{}",
        e.message
    );
    assert_eq!(e.line, line_of(&text, "<include"));

    // merge came with SDF 1.9; libsdformat honours it in an older file too.
    let text = world(
        "1.8",
        "<model name=\"robot\"><include merge=\"true\"><uri>arm</uri></include></model>",
    );
    t.write("world.sdf", &text);
    let w = t.ok("world.sdf", &["lib"]);
    let robot = &w.models[0];
    let links: Vec<&str> = robot.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        links,
        ["shoulder", "elbow"],
        "the merged parts are the robot's own"
    );
    assert_pose(&robot.links[0].pose, [1.0, 0.0, 1.0], Quat::IDENTITY);
}

#[test]
fn merge_into_a_world_takes_models_but_not_links() {
    let t = Tree::new();
    t.model_dir(
        "lib/group",
        "1.10",
        "<model name=\"group\"><pose>10 0 0 0 0 0</pose>\
           <model name=\"m1\"><link name=\"l\"/></model>\
           <model name=\"m2\"><pose>0 1 0 0 0 0</pose><link name=\"l\"/></model>\
           <plugin filename=\"g\" name=\"group::P\"/></model>",
    );
    t.write(
        "world.sdf",
        &world("1.10", "<include merge=\"true\"><uri>group</uri></include>"),
    );
    let w = t.ok("world.sdf", &["lib"]);
    assert_eq!(names(&w), ["m1", "m2"]);
    assert_pose(&w.models[1].pose, [10.0, 1.0, 0.0], Quat::IDENTITY);
    assert_eq!(w.plugins[0].name, "group::P");

    t.model_dir("lib/solid", "1.10", &boxy("solid", "0 0 0 0 0 0", "l"));
    t.write(
        "world.sdf",
        &world("1.10", "<include merge=\"true\"><uri>solid</uri></include>"),
    );
    let e = t.err("world.sdf", &["lib"]);
    assert_eq!(e.kind, ErrorKind::Invalid);
    assert!(
        e.message.contains("cannot be merged into a world"),
        "{}",
        e.message
    );
}

#[test]
fn lights_and_actors_can_be_included_in_worlds_only() {
    let t = Tree::new();
    t.model_dir(
        "lib/sun",
        "1.6",
        "<light type=\"directional\" name=\"sun\"><pose>0 0 10 0 0 0</pose></light>",
    );
    t.write(
        "world.sdf",
        &world("1.6", "<include><uri>model://sun</uri></include>"),
    );
    let w = t.ok("world.sdf", &["lib"]);
    assert!(w.models.is_empty());
    t.write(
        "world.sdf",
        &world(
            "1.6",
            "<model name=\"m\"><link name=\"l\"/><include><uri>model://sun</uri></include></model>",
        ),
    );
    let e = t.err("world.sdf", &["lib"]);
    assert!(e.message.contains("<light>"), "{}", e.render(None));

    // A file with nothing to include, or two things.
    t.write("lib/empty/model.sdf", &sdf("1.9", ""));
    t.write(
        "lib/empty/model.config",
        "<model><sdf version='1.9'>model.sdf</sdf></model>",
    );
    t.write(
        "world.sdf",
        &world("1.9", "<include><uri>empty</uri></include>"),
    );
    let e = t.err("world.sdf", &["lib"]);
    assert_eq!(e.kind, ErrorKind::Missing);
    assert!(e.message.contains("nothing to include"), "{}", e.message);
    t.write(
        "lib/empty/model.sdf",
        &sdf(
            "1.9",
            "<model name='a'><link name='l'/></model><light name='b' type='point'/>",
        ),
    );
    let e = t.err("world.sdf", &["lib"]);
    assert!(
        e.message.contains("one model, actor or light"),
        "{}",
        e.message
    );
}

#[test]
fn unsupported_include_parts_are_refused_not_ignored() {
    let t = Tree::new();
    t.model_dir("lib/m", "1.9", &boxy("m", "0 0 0 0 0 0", "l"));
    let text = world(
        "1.12",
        "<include><uri>m</uri>\n<model_state name=\"m\"/></include>",
    );
    t.write("world.sdf", &text);
    let e = t.err("world.sdf", &["lib"]);
    assert_eq!(e.kind, ErrorKind::Unsupported, "{}", e.render(None));
    assert_eq!(e.line, 5, "{}", e.render(None));
    // A model whose own pose is relative to a frame the include site does not know: refused
    // unless the include gives the pose.
    t.model_dir(
        "lib/rel",
        "1.9",
        "<model name=\"rel\"><pose relative_to=\"somewhere\">0 0 0 0 0 0</pose><link name=\"l\"/></model>",
    );
    t.write(
        "world.sdf",
        &world("1.9", "<include><uri>rel</uri></include>"),
    );
    let e = t.err("world.sdf", &["lib"]);
    assert_eq!(e.kind, ErrorKind::UnknownReference, "{}", e.render(None));
    assert!(e.message.contains("\"somewhere\""), "{}", e.render(None));
    assert!(
        e.file
            .as_ref()
            .is_some_and(|f| f.ends_with("lib/rel/model.sdf")),
        "{}",
        e.render(None)
    );
    t.write(
        "world.sdf",
        &world(
            "1.9",
            "<include><uri>rel</uri><pose>1 0 0 0 0 0</pose></include>",
        ),
    );
    let w = t.ok("world.sdf", &["lib"]);
    assert_pose(&w.models[0].pose, [1.0, 0.0, 0.0], Quat::IDENTITY);
}

#[test]
fn an_include_placement_frame_places_that_frame_of_the_model() {
    let t = Tree::new();
    // Link `l` is 1 m along x of model `m`.
    t.model_dir("lib/m", "1.9", &boxy("m", "0 0 0 0 0 0", "l"));
    let text = world(
        "1.9",
        "<include><uri>m</uri><placement_frame>l</placement_frame><pose>5 0 0 0 0 0</pose></include>",
    );
    t.write("world.sdf", &text);
    let w = t.ok("world.sdf", &["lib"]);
    assert_pose(&w.models[0].pose, [4.0, 0.0, 0.0], Quat::IDENTITY);
    assert_eq!(w.models[0].placement_frame, "l");

    let text = world(
        "1.9",
        "<include><uri>m</uri>\n<placement_frame>nowhere</placement_frame><pose>1 0 0 0 0 0</pose></include>",
    );
    t.write("world.sdf", &text);
    let e = t.err("world.sdf", &["lib"]);
    assert_eq!(e.kind, ErrorKind::UnknownReference, "{}", e.render(None));
    assert_eq!(e.line, 5, "{}", e.render(None));
    assert!(e.message.contains("\"nowhere\""), "{}", e.message);

    // As libsdformat: a placement frame needs the pose that places it.
    let text = world(
        "1.9",
        "<include><uri>m</uri>\n<placement_frame>l</placement_frame></include>",
    );
    t.write("world.sdf", &text);
    let e = t.err("world.sdf", &["lib"]);
    assert_eq!(e.kind, ErrorKind::Missing, "{}", e.render(None));
    assert!(e.message.contains("needs a <pose>"), "{}", e.message);
}

#[test]
fn inline_text_resolves_relative_includes_against_the_given_file() {
    let t = Tree::new();
    t.write(
        "dir/part.sdf",
        &sdf("1.9", &boxy("part", "0 0 0 0 0 0", "l")),
    );
    let text = world("1.9", "<include><uri>part.sdf</uri></include>");
    let w = parse_str_with(&text, Some(&t.path("dir/virtual.sdf")), &t.options(&[])).unwrap();
    assert_eq!(w.models[0].name, "part");
}

#[test]
fn an_included_light_is_a_light_of_the_world() {
    let dir = tempfile::tempdir().unwrap();
    let sun = dir.path().join("models/sun");
    std::fs::create_dir_all(&sun).unwrap();
    std::fs::write(
        sun.join("model.config"),
        r#"<model><name>sun</name><sdf version="1.6">model.sdf</sdf></model>"#,
    )
    .unwrap();
    std::fs::write(
        sun.join("model.sdf"),
        r#"<?xml version="1.0"?>
<sdf version="1.6"><light type="directional" name="sun">
  <pose>0 0 10 0 0 0</pose><diffuse>0.8 0.8 0.8 1</diffuse><direction>-0.5 0.5 -1</direction>
</light></sdf>"#,
    )
    .unwrap();
    let w = dir.path().join("w.sdf");
    std::fs::write(
        &w,
        r#"<?xml version="1.0"?>
<sdf version="1.9"><world name="w">
  <include><uri>model://sun</uri></include>
  <include><uri>model://sun</uri><name>moon</name><pose>1 2 3 0 0 0</pose></include>
  <frame name="f"><pose>0 0 1 0 0 0</pose></frame>
  <include><uri>model://sun</uri><name>lamp</name><pose relative_to="f">0 0 1 0 0 0</pose></include>
</world></sdf>"#,
    )
    .unwrap();
    let world = load_with(&w, &LoadOptions::default()).unwrap();
    let names: Vec<&str> = world.lights.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["sun", "moon", "lamp"]);
    let z: Vec<f64> = world.lights.iter().map(|l| l.pose.position.z).collect();
    assert_eq!(z, [10.0, 3.0, 2.0]);
    assert_eq!(world.lights[0].diffuse, [0.8, 0.8, 0.8, 1.0]);
    assert!(world.lights[0].direction.z < 0.0);
    // A second light of the same name is a duplicate, as for lights written in the world.
    std::fs::write(
        &w,
        r#"<?xml version="1.0"?>
<sdf version="1.9"><world name="w">
  <light type="point" name="sun"/>
  <include><uri>model://sun</uri></include>
</world></sdf>"#,
    )
    .unwrap();
    let e = load_with(&w, &LoadOptions::default()).unwrap_err();
    assert!(e.message.contains("\"sun\""), "{}", e.render(None));
}
