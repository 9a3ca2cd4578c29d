//! `testing::StaticWorld` answers for the entities a test sets: `entity_by_name` finds them
//! and the model links extension (`simcore.model_links.v1`) reports a model's links, so that
//! a model system that finds its links as the guide recommends can be created in a unit test.

use sim_plugin_api::MODEL_LINKS_EXTENSION;
use sim_plugin_api::prelude::*;
use sim_plugin_api::testing::{StaticWorld, system_config};

/// A model system that pushes every link of its model, found as docs/plugins.md says: by the
/// model links extension, refusing a model without it.
struct Pusher {
    links: Vec<(String, EntityId)>,
}

impl Pusher {
    fn create(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let links = world.links_of(config.entity).ok_or_else(|| {
            PluginError::config("this plugin belongs inside a <model> (no links found)")
        })?;
        Ok(Pusher { links })
    }
}

/// A robot (model 2) with a chassis and two wheels, set in an order that is not the ids'
/// order, and a box elsewhere with a link of its own.
fn robot_world() -> StaticWorld {
    let mut world = StaticWorld::default();
    let robot = EntityId(2);
    world.set_entity(robot, EntityKind::MODEL, EntityId::WORLD, "robot");
    world.set_entity(EntityId(7), EntityKind::LINK, robot, "robot::chassis");
    world.set_entity(EntityId(3), EntityKind::LINK, robot, "robot::left_wheel");
    world.set_entity(EntityId(5), EntityKind::LINK, robot, "robot::right_wheel");
    world.set_entity(EntityId(8), EntityKind::JOINT, robot, "robot::left_axle");
    world.set_entity(EntityId(20), EntityKind::MODEL, EntityId::WORLD, "box");
    world.set_entity(EntityId(21), EntityKind::LINK, EntityId(20), "box::body");
    world
}

#[test]
fn a_model_system_finds_its_links_through_the_extension() {
    let world = robot_world();
    let sdf = r#"<plugin filename="acme" name="acme::Pusher"/>"#;
    let config = system_config("acme::Pusher", EntityId(2), "robot", sdf);
    let pusher = world.with(|w| Pusher::create(&config, &w)).unwrap();
    let links: Vec<(&str, u64)> = pusher
        .links
        .iter()
        .map(|(n, id)| (n.as_str(), id.0))
        .collect();
    assert_eq!(
        links,
        [("chassis", 7), ("left_wheel", 3), ("right_wheel", 5)],
        "own names, in the order set; the joint and the other model's link left out"
    );
}

#[test]
fn the_extension_is_offered_and_knows_only_models() {
    let world = robot_world();
    world.with(|w| {
        assert!(w.extension(MODEL_LINKS_EXTENSION.into()).is_some());
        assert!(w.model_links().is_some());
        assert_eq!(
            w.links_of(EntityId(20)),
            Some(vec![("body".into(), EntityId(21))])
        );
        assert_eq!(w.links_of(EntityId(7)), None, "a link is not a model");
        assert_eq!(w.links_of(EntityId(99)), None, "nothing set");
    });
    let mut empty = StaticWorld::default();
    empty.set_entity(EntityId(4), EntityKind::MODEL, EntityId::WORLD, "bare");
    assert_eq!(empty.with(|w| w.links_of(EntityId(4))), Some(vec![]));

    let config = system_config("acme::Pusher", EntityId::WORLD, "static", "<plugin/>");
    let e = world
        .with(|w| Pusher::create(&config, &w))
        .err()
        .expect("the world is not a model");
    assert!(e.to_string().contains("inside a <model>"), "{e}");
}

#[test]
fn entity_by_name_finds_what_set_entity_set() {
    let mut world = robot_world();
    world.with(|w| {
        assert_eq!(w.entity_by_name("robot::left_wheel".into()), EntityId(3));
        assert_eq!(w.entity_by_name("robot".into()), EntityId(2));
        assert_eq!(
            w.entity_by_name("left_wheel".into()),
            EntityId::NONE,
            "scoped names only"
        );
        assert_eq!(w.entity_by_name("robot::nothing".into()), EntityId::NONE);
        let info = w.entity_info(EntityId(3)).unwrap();
        assert_eq!(
            (info.name.as_str(), info.kind, info.parent),
            ("left_wheel", EntityKind::LINK, EntityId(2))
        );
    });

    // Set again: the new name is found, the old one no longer, and the link keeps its place.
    world.set_entity(EntityId(7), EntityKind::LINK, EntityId(2), "robot::base");
    // Removed: found neither by name nor among the links.
    world.remove_entity(EntityId(3));
    world.with(|w| {
        assert_eq!(w.entity_by_name("robot::base".into()), EntityId(7));
        assert_eq!(w.entity_by_name("robot::chassis".into()), EntityId::NONE);
        assert_eq!(w.entity_by_name("robot::left_wheel".into()), EntityId::NONE);
        let names: Vec<String> = w
            .links_of(EntityId(2))
            .unwrap()
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, ["base", "right_wheel"]);
    });
}
