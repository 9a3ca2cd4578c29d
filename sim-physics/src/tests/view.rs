//! What plugins see: model boxes, the broad-phase model query, contacts and the scene.

use super::*;

#[test]
fn models_report_collision_aabbs() {
    let p = Physics::build(&world(BOX)).unwrap();
    let mut out = RVec::new();
    p.view("t").models(&mut out);
    assert_eq!(out.len(), 2);
    let b = out
        .iter()
        .find(|m| Some(m.id) == p.entity_id("box"))
        .unwrap();
    assert!(b.has_collision && !b.is_static);
    assert!(
        (b.aabb.min.z - 1.9).abs() < 1e-4 && (b.aabb.max.z - 2.1).abs() < 1e-4,
        "{:?}",
        b.aabb
    );
}

#[test]
fn broad_phase_model_query() {
    let p = Physics::build(&world(BOX)).unwrap();
    let view = p.view("t");
    let query = |min: Vec3, max: Vec3| {
        let mut out = RVec::new();
        view.models_in_aabb(Aabb { min, max }, &mut out);
        out.iter()
            .map(|m| p.scoped_name(m.id).unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        query(Vec3::new(-0.5, -0.5, 1.5), Vec3::new(0.5, 0.5, 2.5)),
        vec!["box"]
    );
    assert!(query(Vec3::new(5.0, 5.0, 1.0), Vec3::new(6.0, 6.0, 3.0)).is_empty());
    // The ground plane's box is the half-space below z = 0: found only where it reaches.
    assert_eq!(
        query(Vec3::new(50.0, 50.0, -1.0), Vec3::new(51.0, 51.0, 0.5)),
        vec!["ground"]
    );
    assert!(query(Vec3::new(50.0, 50.0, 0.5), Vec3::new(51.0, 51.0, 1.0)).is_empty());
}

#[test]
fn contact_forces_of_a_resting_box_add_up_to_m_g() {
    let mut p = Physics::build(&world(
        r#"<model name="box"><pose>0 0 0.1 0 0 0</pose><link name="body"><inertial><mass>3</mass></inertial>
           <collision name="c"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision></link></model>"#,
    ))
    .unwrap();
    for _ in 0..500 {
        p.step();
    }
    let view = p.view("t");
    let boxc = p.entity_id("box::body::c").unwrap();
    let ground = p.entity_id("ground::l::c").unwrap();
    let mut out = RVec::new();
    view.contacts(RSlice::from_slice(&[boxc]), &mut out);
    assert!(out.len() >= 3, "a face resting on the plane: {out:?}");
    let total = out.iter().fold(Vec3::ZERO, |a, c| a + c.force);
    assert!(
        (total.z - 3.0 * 9.8).abs() < 0.05,
        "the ground holds the box: {total:?}"
    );
    assert!(
        out.iter()
            .all(|c| c.collision1 == boxc && c.collision2 == ground && c.normal.z < -0.99)
    );
    assert!(out.iter().all(|c| c.position.z.abs() < 0.01));
    view.contacts(RSlice::from_slice(&[ground]), &mut out);
    let total = out.iter().fold(Vec3::ZERO, |a, c| a + c.force);
    assert!(
        (total.z + 3.0 * 9.8).abs() < 0.05,
        "and the box presses on the ground: {total:?}"
    );
}

#[test]
fn the_scene_extension_reports_scene_lights_and_labels() {
    let w = sim_sdf::parse_str(
        r#"<sdf version="1.12"><world name="w">
        <scene><ambient>0.1 0.2 0.3 1</ambient></scene>
        <light name="sun" type="directional"><pose>0 0 10 0 0 1.5707963267948966</pose>
          <direction>1 0 -1</direction><cast_shadows>true</cast_shadows></light>
        <model name="outer">
          <plugin filename="gz-sim-label-system" name="gz::sim::systems::Label"><label>7</label></plugin>
          <link name="l">
            <visual name="v"><geometry><sphere><radius>1</radius></sphere></geometry></visual>
            <visual name="own"><geometry><sphere><radius>1</radius></sphere></geometry>
              <plugin filename="gz-sim-label-system" name="gz::sim::systems::Label"><label>9</label></plugin></visual>
          </link>
          <model name="inner"><link name="l">
            <visual name="v"><geometry><sphere><radius>1</radius></sphere></geometry></visual>
          </link></model>
        </model>
        <model name="plain"><link name="l">
          <visual name="v"><geometry><sphere><radius>1</radius></sphere></geometry></visual>
        </link></model>
        </world></sdf>"#,
        None,
    )
    .unwrap();
    let p = Physics::build(&w).unwrap();
    let view = p.view("test");
    let world = sim_plugin_api::WorldView_TO::from_ptr(RRef::new(&view), TD_Opaque);
    let scene = world.scene().expect("the engine offers simcore.scene.v1");
    assert_eq!(scene.scene().ambient, [0.1, 0.2, 0.3, 1.0]);
    assert_eq!(scene.scene().background, [0.7, 0.7, 0.7, 1.0]);
    let mut lights = RVec::new();
    scene.lights(&mut lights);
    assert_eq!(lights.len(), 1);
    // (1, 0, -1) in the light frame, yawed +90°: (0, 1, -1) in the world, normalised.
    let s = std::f64::consts::FRAC_1_SQRT_2;
    assert!((lights[0].direction - Vec3::new(0.0, s, -s)).length() < 1e-9);
    assert!(lights[0].cast_shadows);
    assert_eq!(lights[0].pose.position, Vec3::new(0.0, 0.0, 10.0));
    let ids: Vec<EntityId> = [
        "outer::l::v",
        "outer::l::own",
        "outer::inner::l::v",
        "plain::l::v",
        "plain::l",
    ]
    .iter()
    .map(|n| p.entity_id(n).unwrap())
    .collect();
    let mut labels = [0u32; 5];
    let known = scene.labels(
        RSlice::from_slice(&ids),
        RSliceMut::from_mut_slice(&mut labels),
    );
    assert_eq!(known, 4, "the link is not a visual");
    assert_eq!(labels, [7, 9, 7, NO_LABEL, NO_LABEL]);
    assert!(world.extension("simcore.other".into()).is_none());
}

#[test]
fn the_visual_boxes_extension_reports_each_shape_in_its_own_frame() {
    let w = sim_sdf::parse_str(
        r#"<sdf version="1.12"><world name="w">
        <model name="ground"><static>true</static><link name="l">
          <visual name="v"><geometry><plane><normal>0 0 1</normal></plane></geometry></visual>
        </link></model>
        <model name="m"><pose>1 2 3 0 0 1.5707963267948966</pose>
          <plugin filename="gz-sim-label-system" name="gz::sim::systems::Label"><label>5</label></plugin>
          <link name="l"><pose>0 0 1 0 0 0</pose>
            <visual name="can"><pose>0.5 0 0 0.3 0 0</pose>
              <geometry><cylinder><radius>0.2</radius><length>1.0</length></cylinder></geometry></visual>
            <visual name="ball"><geometry><sphere><radius>0.4</radius></sphere></geometry></visual>
          </link>
        </model>
        </world></sdf>"#,
        None,
    )
    .unwrap();
    let p = Physics::build(&w).unwrap();
    let view = p.view("test");
    let world = sim_plugin_api::WorldView_TO::from_ptr(RRef::new(&view), TD_Opaque);
    let boxes = world
        .visual_boxes()
        .expect("the engine offers simcore.visual_boxes.v1");
    // The plane has no bounded box.
    assert_eq!(boxes.len(), 2, "{boxes:?}");
    let model = p.entity_id("m").unwrap();
    let close = |a: Vec3, b: Vec3| (a - b).length() < 1e-5;
    let can = boxes[0];
    assert_eq!(can.visual, p.entity_id("m::l::can").unwrap());
    assert_eq!((can.model, can.label), (model, 5));
    // The cylinder's axis is the visual's z, whatever axis the engine builds it along.
    assert!(close(can.center, Vec3::ZERO), "{can:?}");
    assert!(close(can.half_extents, Vec3::new(0.2, 0.2, 0.5)), "{can:?}");
    // World pose: model (1, 2, 3) yawed 90°, link 1 m up, visual 0.5 m along the link's x.
    assert!(
        close(can.pose.position, Vec3::new(1.0, 2.5, 4.0)),
        "{can:?}"
    );
    let want = sim_plugin_api::Quat::from_rpy(0.0, 0.0, std::f64::consts::FRAC_PI_2)
        * sim_plugin_api::Quat::from_rpy(0.3, 0.0, 0.0);
    let axis = Vec3::new(0.0, 0.0, 1.0);
    assert!(close(can.pose.orientation.rotate(axis), want.rotate(axis)));
    let ball = boxes[1];
    assert!(
        close(ball.half_extents, Vec3::new(0.4, 0.4, 0.4)),
        "{ball:?}"
    );
    assert!(
        close(ball.pose.position, Vec3::new(1.0, 2.0, 4.0)),
        "{ball:?}"
    );
}
