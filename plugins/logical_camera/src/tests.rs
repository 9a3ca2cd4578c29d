//! Tests of the sensor through its public API, against a small world of models.

use crate::LogicalCameraSensor;
use sim_plugin_api::{
    Aabb, EntityId, EntityKind, ErrorCode, KinematicState, LogicalCameraFrustum,
    LogicalCameraImage, Message, ModelInfo, Payload, PluginError, Pose, Quat, Sensor, Vec3,
    abi_stable::std_types::RVec,
    testing::{StaticWorld, run_update, sensor_config, try_update},
};
use simcore_plugin_common::SdfSensor;
use std::f64::consts::PI;

const NAME: &str = "post::link::cam";
const TUTORIAL: &str = r#"<sensor name="cam" type="logical_camera"><logical_camera><near>0.55</near><far>2.5</far><horizontal_fov>1.05</horizontal_fov><aspect_ratio>1.8</aspect_ratio></logical_camera></sensor>"#;

/// A fixed world of models (and links) with boxes given directly, on a [`StaticWorld`]: its
/// broad phase returns every model whose box overlaps the query, plus the ones set with
/// `set_always_in_aabb` (to play a conservative broad phase), and it records the calls the
/// sensor makes.
trait ModelWorld {
    /// A model (or link) `scoped` at `pose`, described by `info`.
    fn add(&mut self, info: ModelInfo, kind: EntityKind, scoped: &str, pose: Pose);

    /// A model `scoped` (parent `parent`) at `pose` with collision box `aabb` (None: no
    /// collision).
    fn model(&mut self, id: u64, parent: EntityId, scoped: &str, pose: Pose, aabb: Option<Aabb>) {
        let info = ModelInfo {
            id: EntityId(id),
            parent,
            is_static: true,
            has_collision: aabb.is_some(),
            aabb: aabb.unwrap_or_default(),
        };
        self.add(info, EntityKind::MODEL, scoped, pose);
    }

    /// A cube model of side `size` centred on its origin `p`.
    fn cube(&mut self, id: u64, scoped: &str, p: Vec3, size: f64) {
        let aabb = cube_box(p, size);
        self.model(
            id,
            EntityId::WORLD,
            scoped,
            Pose::new(p, Quat::IDENTITY),
            Some(aabb),
        );
    }

    fn link(&mut self, id: u64, scoped: &str, pose: Pose) {
        let info = ModelInfo {
            id: EntityId(id),
            ..Default::default()
        };
        self.add(info, EntityKind::LINK, scoped, pose);
    }
}

impl ModelWorld for StaticWorld {
    fn add(&mut self, info: ModelInfo, kind: EntityKind, scoped: &str, pose: Pose) {
        self.set_entity(info.id, kind, info.parent, scoped);
        self.set_kinematics(
            info.id,
            KinematicState {
                pose,
                ..Default::default()
            },
        );
        if kind == EntityKind::MODEL {
            self.add_model(info);
        }
    }
}

/// The box of a cube of side `size` centred on `p`.
fn cube_box(p: Vec3, size: f64) -> Aabb {
    let h = Vec3::new(size, size, size).scale(0.5);
    Aabb {
        min: p - h,
        max: p + h,
    }
}

const POST: EntityId = EntityId(10);
const POST_LINK: EntityId = EntityId(11);

/// The tutorial's world: a post at (0, 0, 1) yawed pi carrying the camera, and a 1 m
/// `target_box` at (-2, 0, 1).
fn tutorial_world() -> StaticWorld {
    let mut w = StaticWorld::default();
    let post = Pose::from_xyz_rpy(0.0, 0.0, 1.0, 0.0, 0.0, PI);
    // The post's own box surrounds the camera, so it is in view: it must not be reported.
    w.model(
        POST.0,
        EntityId::WORLD,
        "post",
        post,
        Some(Aabb {
            min: Vec3::new(-0.8, -0.1, 0.0),
            max: Vec3::new(0.1, 0.1, 2.0),
        }),
    );
    w.link(POST_LINK.0, "post::link", post);
    w.cube(20, "target_box", Vec3::new(-2.0, 0.0, 1.0), 1.0);
    w
}

fn camera(world: &StaticWorld, sdf: &str, pose_in_link: Pose) -> LogicalCameraSensor {
    try_camera(world, sdf, pose_in_link).unwrap_or_else(|e| panic!("create failed: {e}"))
}

fn try_camera(
    world: &StaticWorld,
    sdf: &str,
    pose_in_link: Pose,
) -> Result<LogicalCameraSensor, PluginError> {
    let mut config = sensor_config(NAME, "logical_camera", POST_LINK, sdf);
    config.model = POST;
    config.pose = pose_in_link;
    world.with(|w| LogicalCameraSensor::create(&config, &w))
}

fn update(sensor: &mut LogicalCameraSensor, world: &StaticWorld) -> Vec<Message> {
    world.with(|w| run_update(sensor, &w))
}

fn image(messages: &[Message]) -> LogicalCameraImage {
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0].topic.as_str(), "");
    match messages[0].payload.as_enum() {
        Ok(Payload::LogicalCameraImage(i)) => (**i).clone(),
        other => panic!("expected a logical camera image, got {other:?}"),
    }
}

fn names(image: &LogicalCameraImage) -> Vec<String> {
    image.models.iter().map(|m| m.name.to_string()).collect()
}

fn seen(sensor: &mut LogicalCameraSensor, world: &StaticWorld) -> Vec<String> {
    names(&image(&update(sensor, world)))
}

fn assert_close(a: Vec3, b: Vec3, tol: f64) {
    assert!((a - b).length() < tol, "expected {b:?}, got {a:?}");
}

#[test]
fn tutorial_target_is_two_metres_ahead_and_turned_around() {
    let w = tutorial_world();
    let mut cam = camera(&w, TUTORIAL, Pose::IDENTITY);
    let out = update(&mut cam, &w);
    let img = image(&out);
    assert_eq!(names(&img), ["target_box"]);
    assert_close(img.pose.position, Vec3::new(0.0, 0.0, 1.0), 1e-12);
    let (_, _, yaw) = img.pose.orientation.to_rpy();
    assert!((yaw.abs() - PI).abs() < 1e-9);
    let rel = img.models[0].pose;
    assert_close(rel.position, Vec3::new(2.0, 0.0, 0.0), 1e-9);
    let (r, p, y) = rel.orientation.to_rpy();
    assert!(r.abs() < 1e-9 && p.abs() < 1e-9, "{r} {p}");
    assert!((y.abs() - PI).abs() < 1e-9, "relative yaw {y}");

    // The frustum on `frustum`, relative to the sensor's topic.
    assert_eq!(out[1].topic.as_str(), "frustum");
    match out[1].payload.as_enum() {
        Ok(Payload::LogicalCameraFrustum(f)) => assert_eq!(
            **f,
            LogicalCameraFrustum {
                near_clip: 0.55,
                far_clip: 2.5,
                horizontal_fov: 1.05,
                aspect_ratio: 1.8
            }
        ),
        other => panic!("expected a frustum, got {other:?}"),
    }
}

#[test]
fn candidates_come_from_the_broad_phase_with_the_frustum_box() {
    let w = tutorial_world();
    let mut cam = camera(&w, TUTORIAL, Pose::IDENTITY);
    update(&mut cam, &w);
    update(&mut cam, &w);
    assert_eq!(w.queries().models, 0, "scanned all models");
    let queries = w.queries().models_in_aabb;
    assert_eq!(queries.len(), 2);
    let expected = cam
        .frustum()
        .posed(Pose::from_xyz_rpy(0.0, 0.0, 1.0, 0.0, 0.0, PI))
        .bounding_box();
    assert_close(queries[0].min, expected.min, 1e-12);
    assert_close(queries[0].max, expected.max, 1e-12);
}

#[test]
fn names_are_looked_up_once_per_model() {
    let mut w = tutorial_world();
    w.cube(21, "other", Vec3::new(-1.5, 0.3, 1.0), 0.2);
    let mut cam = camera(&w, TUTORIAL, Pose::IDENTITY);
    for _ in 0..5 {
        assert_eq!(seen(&mut cam, &w), ["target_box", "other"]);
    }
    assert_eq!(w.queries().entity_info, 2);
    // The names are shared: the same allocation in every message.
    let a = image(&update(&mut cam, &w));
    let b = image(&update(&mut cam, &w));
    assert!(std::ptr::eq(
        a.models[0].name.as_str().as_ptr(),
        b.models[0].name.as_str().as_ptr()
    ));
}

#[test]
fn conservative_candidates_are_judged_exactly() {
    let mut w = tutorial_world();
    // Near the frustum but outside (beside the far-left corner), handed over by the broad
    // phase anyway, and one far away.
    w.cube(30, "beside", Vec3::new(-2.4, -1.8, 1.0), 0.3);
    w.cube(31, "far_away", Vec3::new(40.0, 0.0, 1.0), 0.3);
    w.set_always_in_aabb(vec![EntityId(30), EntityId(31)]);
    let mut cam = camera(&w, TUTORIAL, Pose::IDENTITY);
    assert_eq!(seen(&mut cam, &w), ["target_box"]);
}

#[test]
fn own_model_is_never_reported_but_its_parent_and_nested_models_are() {
    let mut w = StaticWorld::default();
    // base (own box in view) > rig (the camera's model, box in view) > arm (box in view).
    let rig_pose = Pose::from_xyz_rpy(0.0, 0.0, 1.0, 0.0, 0.0, 0.0);
    w.model(
        40,
        EntityId::WORLD,
        "base",
        Pose::IDENTITY,
        Some(Aabb {
            min: Vec3::new(1.0, -0.2, 0.8),
            max: Vec3::new(1.2, 0.2, 1.2),
        }),
    );
    w.model(
        41,
        EntityId(40),
        "base::rig",
        rig_pose,
        Some(Aabb {
            min: Vec3::new(-0.1, -0.1, 0.9),
            max: Vec3::new(2.0, 0.1, 1.1),
        }),
    );
    w.model(
        42,
        EntityId(41),
        "base::rig::arm",
        Pose::from_xyz_rpy(1.5, 0.0, 1.0, 0.0, 0.0, 0.0),
        Some(Aabb {
            min: Vec3::new(1.4, -0.1, 0.9),
            max: Vec3::new(1.6, 0.1, 1.1),
        }),
    );
    w.link(43, "base::rig::link", rig_pose);
    let mut config = sensor_config("base::rig::link::cam", "logical_camera", EntityId(43), "");
    config.model = EntityId(41);
    config.sdf = TUTORIAL.into();
    let mut cam = w
        .with(|v| LogicalCameraSensor::create(&config, &v))
        .unwrap();
    let img = image(&update(&mut cam, &w));
    assert_eq!(names(&img), ["base", "base::rig::arm"]);
    assert_close(
        img.models[0].pose.position,
        Vec3::new(0.0, 0.0, -1.0),
        1e-12,
    );
    assert_close(img.models[1].pose.position, Vec3::new(1.5, 0.0, 0.0), 1e-12);
}

#[test]
fn models_without_collision_are_never_seen() {
    let mut w = tutorial_world();
    // In the middle of the view, listed by the broad phase, but without collision geometry
    // (its box field is meaningless: make it cover the view).
    let ghost = ModelInfo {
        id: EntityId(50),
        parent: EntityId::WORLD,
        is_static: true,
        has_collision: false,
        aabb: Aabb {
            min: Vec3::new(-3.0, -3.0, -3.0),
            max: Vec3::new(3.0, 3.0, 3.0),
        },
    };
    let pose = Pose::from_xyz_rpy(-1.5, 0.0, 1.0, 0.0, 0.0, 0.0);
    w.add(ghost, EntityKind::MODEL, "ghost", pose);
    w.set_always_in_aabb(vec![EntityId(50)]);
    let mut cam = camera(&w, TUTORIAL, Pose::IDENTITY);
    assert_eq!(seen(&mut cam, &w), ["target_box"]);
}

#[test]
fn ground_plane_only_when_the_view_reaches_it() {
    let inf = f64::INFINITY;
    let mut w = tutorial_world();
    w.model(
        60,
        EntityId::WORLD,
        "ground",
        Pose::IDENTITY,
        Some(Aabb {
            min: Vec3::new(-inf, -inf, -inf),
            max: Vec3::new(inf, inf, 0.0),
        }),
    );
    // Level at 1 m: the view bottoms out at 1 - 2.5 tan(v/2) = 0.19 m.
    let mut level = camera(&w, TUTORIAL, Pose::IDENTITY);
    assert_eq!(seen(&mut level, &w), ["target_box"]);
    // Pitched down 0.3 rad (positive pitch looks down in the camera's frame).
    let mut down = camera(
        &w,
        TUTORIAL,
        Pose::from_xyz_rpy(0.0, 0.0, 0.0, 0.0, 0.3, 0.0),
    );
    assert!(seen(&mut down, &w).contains(&"ground".to_string()));
}

#[test]
fn sensor_pose_in_link_is_applied() {
    let w = tutorial_world();
    // Turned back around (yaw pi in the link): looks along world +X, away from the target.
    let mut cam = camera(
        &w,
        TUTORIAL,
        Pose::from_xyz_rpy(0.0, 0.0, 0.5, 0.0, 0.0, PI),
    );
    let img = image(&update(&mut cam, &w));
    assert!(img.models.is_empty());
    assert_close(img.pose.position, Vec3::new(0.0, 0.0, 1.5), 1e-12);
    let (_, _, yaw) = img.pose.orientation.to_rpy();
    assert!(yaw.abs() < 1e-9);
    // Raised 0.5 m, the target is now 0.5 m below the optical axis.
    let mut raised = camera(
        &w,
        TUTORIAL,
        Pose::from_xyz_rpy(0.0, 0.0, 0.5, 0.0, 0.0, 0.0),
    );
    let img = image(&update(&mut raised, &w));
    assert_eq!(names(&img), ["target_box"]);
    assert_close(img.models[0].pose.position, Vec3::new(2.0, 0.0, -0.5), 1e-9);
}

#[test]
fn observe_judges_any_candidate_list() {
    let mut w = tutorial_world();
    w.cube(70, "behind", Vec3::new(2.0, 0.0, 1.0), 1.0);
    let mut cam = camera(&w, TUTORIAL, Pose::IDENTITY);
    let img = w.with(|v| {
        let pose = cam.camera_pose(&v).unwrap();
        let posed = cam.frustum().posed(pose);
        let mut all = RVec::new();
        v.models(&mut all);
        cam.observe(&v, pose, &posed, &all)
    });
    assert_eq!(names(&img), ["target_box"]);
}

#[test]
fn missing_link_is_a_runtime_error() {
    let w = tutorial_world();
    let mut config = sensor_config(NAME, "logical_camera", EntityId(999), TUTORIAL);
    config.model = POST;
    let mut cam = w
        .with(|v| LogicalCameraSensor::create(&config, &v))
        .unwrap();
    let e = w.with(|v| try_update(&mut cam, &v)).unwrap_err();
    assert_eq!(e.code, ErrorCode::RUNTIME);
    assert!(
        e.message.starts_with(NAME) && e.message.contains("999"),
        "{e}"
    );
}

#[test]
fn configuration_errors_name_the_sensor_and_element() {
    let w = tutorial_world();
    let e = try_camera(&w, &TUTORIAL.replace("<far>2.5</far>", ""), Pose::IDENTITY).unwrap_err();
    assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
    assert_eq!(
        e.message.as_str(),
        "post::link::cam: <logical_camera><far> is required (a finite number)"
    );
    let e = try_camera(&w, &TUTORIAL.replace("1.05", "4"), Pose::IDENTITY).unwrap_err();
    assert!(
        e.message.starts_with(NAME) && e.message.contains("<logical_camera><horizontal_fov>"),
        "{e}"
    );
}

#[test]
fn run_time_parameters() {
    let mut w = tutorial_world();
    w.cube(80, "distant", Vec3::new(-5.0, 0.0, 1.0), 1.0);
    let mut cam = camera(&w, TUTORIAL, Pose::IDENTITY);
    assert_eq!(seen(&mut cam, &w), ["target_box"]);
    w.with(|v| cam.set_parameter("far", "6", &v)).unwrap();
    assert_eq!(seen(&mut cam, &w), ["target_box", "distant"]);
    // Invalid: refused, nothing changes.
    let e = w.with(|v| cam.set_parameter("near", "7", &v)).unwrap_err();
    assert_eq!(e.code, ErrorCode::BAD_REQUEST);
    assert!(e.message.contains("<logical_camera><far>"), "{e}");
    assert_eq!(cam.config().near, 0.55);
    let e = w.with(|v| cam.set_parameter("zoom", "2", &v)).unwrap_err();
    assert_eq!(e.code, ErrorCode::UNSUPPORTED);
    // Narrow the view to a sliver: the target (0.5 m wide at 1.5 m) is still there, the
    // frustum message follows.
    w.with(|v| cam.set_parameter("horizontal_fov", "0.01", &v))
        .unwrap();
    let out = update(&mut cam, &w);
    match out[1].payload.as_enum() {
        Ok(Payload::LogicalCameraFrustum(f)) => {
            assert_eq!((f.horizontal_fov, f.far_clip), (0.01, 6.0))
        }
        other => panic!("expected a frustum, got {other:?}"),
    }
}

#[test]
fn models_the_engine_no_longer_knows_are_skipped() {
    let mut w = tutorial_world();
    let mut cam = camera(&w, TUTORIAL, Pose::IDENTITY);
    let unknown = ModelInfo {
        id: EntityId(999),
        parent: EntityId::WORLD,
        is_static: true,
        has_collision: true,
        aabb: cube_box(Vec3::new(-2.0, 0.0, 1.0), 1.0), // target_box's
    };
    w.remove_entity(EntityId(20));
    let img = w.with(|v| {
        let pose = cam.camera_pose(&v).unwrap();
        let posed = cam.frustum().posed(pose);
        cam.observe(&v, pose, &posed, &[unknown])
    });
    assert!(img.models.is_empty());
}
