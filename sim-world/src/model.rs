//! The data model: worlds, models, links, collisions, visuals, sensors and plugins, with
//! poses and source locations.

use std::path::PathBuf;
use std::sync::Arc;

use crate::surface::{Surface, VelocityDecay};
use sim_plugin_api::{Pose, Vec3};

/// Where an element was read from: file, 1-based line and column.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Span {
    /// The file (None for inline text).
    pub file: Option<Arc<PathBuf>>,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.file {
            Some(p) => write!(f, "{}:{}:{}", p.display(), self.line, self.column),
            None => write!(f, "<inline>:{}:{}", self.line, self.column),
        }
    }
}

/// A world: the root of everything simulated.
#[derive(Clone, Debug, PartialEq)]
pub struct World {
    /// `<world name>`.
    pub name: String,
    /// The SDF version the document declared.
    pub sdf_version: String,
    /// Physics settings.
    pub physics: Physics,
    /// Gravity, m/s^2 (default 0 0 -9.8).
    pub gravity: Vec3,
    /// Magnetic field, T (default as SDF).
    pub magnetic_field: Vec3,
    /// `<atmosphere><temperature>`, K (288.15 when absent, as SDF's default).
    pub atmosphere_temperature: f64,
    /// `<spherical_coordinates>`, if given.
    pub spherical_coordinates: Option<SphericalCoordinates>,
    /// `<scene>` (SDF defaults when absent).
    pub scene: Scene,
    /// World-level `<light>`s, in document order.
    pub lights: Vec<Light>,
    /// The names of the world's `<actor>`s (written or included), in document order. Actors
    /// are checked and listed but not simulated.
    pub actors: Vec<String>,
    /// Top-level models, in document order.
    pub models: Vec<Model>,
    /// World-level `<frame>`s (SDF 1.7+); their resolved `pose` is in the world frame.
    pub frames: Vec<Frame>,
    /// World-level `<joint>`s (SDF 1.10+): `parent_link` / `child_link` are scoped names
    /// from the world (`model::link`, `model::nested::link`) or `world`.
    pub joints: Vec<Joint>,
    /// World plugins.
    pub plugins: Vec<PluginSpec>,
    /// Where `<world>` is.
    pub span: Span,
    /// The bounds the world was loaded with, which also bound the files read when it is
    /// built (meshes, height maps) and the models created in it later.
    pub limits: crate::input::Limits,
    /// The resource search path the world was loaded with: the models created in it later
    /// are looked up on it, and may read their files from it (and the world's directory).
    pub resources: crate::resources::ResourcePath,
}

/// The fastest sensor `<update_rate>` with a period of at least one nanosecond, the clock's
/// resolution (Hz). A
/// faster sensor is due at every step, as one at rate 0.
pub const MAX_RATE_HZ: f64 = 1e9;

/// The slowest rate whose period fits the clock (about 292 years, Hz). A slower sensor
/// updates once, at the start, and never again.
pub const MIN_RATE_HZ: f64 = 1e9 / i64::MAX as f64;

/// `<physics>`.
#[derive(Clone, Debug, PartialEq)]
pub struct Physics {
    /// `<max_step_size>`, s (default 0.001).
    pub max_step_size: f64,
    /// `<real_time_factor>` (default 1).
    pub real_time_factor: f64,
    /// `@type` (default `ode`; informational, the engine is rapier).
    pub engine: String,
    /// The iterations of the contact and joint solver: `<dart><solver><iters>` or
    /// `<ode><solver><iters>` (DART's first), when written.
    pub solver_iterations: Option<u32>,
}

impl Default for Physics {
    fn default() -> Self {
        Physics {
            max_step_size: 0.001,
            real_time_factor: 1.0,
            engine: "ode".into(),
            solver_iterations: None,
        }
    }
}

/// `<spherical_coordinates>`.
#[derive(Clone, Debug, PartialEq)]
pub struct SphericalCoordinates {
    /// `<surface_model>` (EARTH_WGS84, MOON_SCS, CUSTOM_SURFACE).
    pub surface_model: String,
    /// Latitude of the origin, degrees.
    pub latitude_deg: f64,
    /// Longitude of the origin, degrees.
    pub longitude_deg: f64,
    /// Elevation of the origin, m.
    pub elevation: f64,
    /// Heading, degrees.
    pub heading_deg: f64,
    /// Equatorial axis, m.
    pub equatorial_axis: f64,
    /// Polar axis, m.
    pub polar_axis: f64,
}

/// A `<pose>` exactly as written: its value and the frame it is written in. Every posed
/// element keeps one beside its resolved `pose`, so that tools (`simcore inspect`) can show
/// what the file says as well as what it means.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawPose {
    /// The value as written (after `@degrees` and `@rotation_format` conversion), in the
    /// frame `relative_to`.
    pub pose: Pose,
    /// `@relative_to` (SDF 1.7+; `@frame` before), trimmed. Empty: the element's default
    /// frame (see the `pose` field of each element).
    pub relative_to: String,
    /// Where the `<pose>` element is (the owning element's position when it has none).
    pub span: Span,
}

/// A `<frame name attached_to>` of a model or of the world (SDF 1.7+).
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// `<frame name>`.
    pub name: String,
    /// `@attached_to` as written (empty: the enclosing model frame, or the world).
    pub attached_to: String,
    /// The body the frame moves with, resolved through the attached_to chain: a link named
    /// relative to the enclosing model (`link`, `nested::link`) for model frames, a scoped
    /// link (`model::link`) or `world` for world frames; `__model__` for a frame of a static
    /// model without links.
    pub attached_to_body: String,
    /// The pose as written.
    pub raw_pose: RawPose,
    /// Resolved pose in the enclosing model's frame (the world frame for world frames).
    pub pose: Pose,
    /// Where `<frame>` is.
    pub span: Span,
}

/// The world's `<scene>`: colours RGBA in [0, 1].
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    /// `<ambient>` (default 0.4 0.4 0.4 1).
    pub ambient: [f32; 4],
    /// `<background>` (default 0.7 0.7 0.7 1).
    pub background: [f32; 4],
    /// `<shadows>` (default true).
    pub shadows: bool,
}

impl Default for Scene {
    fn default() -> Self {
        Scene {
            ambient: [0.4, 0.4, 0.4, 1.0],
            background: [0.7, 0.7, 0.7, 1.0],
            shadows: true,
        }
    }
}

/// `<light type>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LightKind {
    /// `directional`: parallel rays (the sun).
    Directional,
    /// `point`: from a point in every direction.
    Point,
    /// `spot`: a cone from a point.
    Spot,
}

/// A world-level `<light>`. Defaults are those of SDF 1.12; as libsdformat, any finite
/// attenuation, intensity and spot values are accepted.
#[derive(Clone, Debug, PartialEq)]
pub struct Light {
    /// `<light name>`.
    pub name: String,
    /// `<light type>`.
    pub kind: LightKind,
    /// `<pose>`, in the world.
    pub pose: Pose,
    /// `<pose>` as written, with its `relative_to` (for an included light, the include's
    /// `<pose>` when it has one).
    pub raw_pose: RawPose,
    /// `<direction>` in the light's frame (default 0 0 -1), unit length.
    pub direction: Vec3,
    /// `<diffuse>` RGBA (default 1 1 1 1).
    pub diffuse: [f32; 4],
    /// `<specular>` RGBA (default 0.1 0.1 0.1 1).
    pub specular: [f32; 4],
    /// `<intensity>` (default 1).
    pub intensity: f64,
    /// `<attenuation><range>`, m (default 10; zero or negative: unlimited).
    pub range: f64,
    /// `<attenuation><constant>` (default 1).
    pub constant: f64,
    /// `<attenuation><linear>` (default 1).
    pub linear: f64,
    /// `<attenuation><quadratic>` (default 0).
    pub quadratic: f64,
    /// `<spot><inner_angle>`, rad (default 0).
    pub spot_inner_angle: f64,
    /// `<spot><outer_angle>`, rad (default 0).
    pub spot_outer_angle: f64,
    /// `<spot><falloff>` (default 0).
    pub spot_falloff: f64,
    /// `<cast_shadows>` (default false).
    pub cast_shadows: bool,
    /// Where it is.
    pub span: Span,
}

impl Light {
    /// The direction the light shines in, world frame (unit length).
    pub fn world_direction(&self) -> Vec3 {
        self.pose.orientation.rotate(self.direction).normalized()
    }
}

/// A model (possibly nested).
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// `<model name>`.
    pub name: String,
    /// Resolved pose of the model frame relative to the parent model's frame (or the world):
    /// `relative_to` and `placement_frame` already applied.
    pub pose: Pose,
    /// The pose as written (for a model with a `placement_frame`, the pose of that frame).
    pub raw_pose: RawPose,
    /// The canonical link, resolved and named relative to this model (`link`, or
    /// `nested::link` when it is a nested model's); empty only for a static model without
    /// links. The model frame is attached to it.
    pub canonical_link: String,
    /// `@placement_frame` (or that of the `<include>` that brought the model in): the frame
    /// of this model whose pose `raw_pose` gives. Empty: the model frame.
    pub placement_frame: String,
    /// `<static>`.
    pub is_static: bool,
    /// `<self_collide>`: whether the model's links touch each other (unless a joint joins
    /// them); the default of its links' own `<self_collide>`.
    pub self_collide: bool,
    /// Links, in document order.
    pub links: Vec<Link>,
    /// Joints between the model's links (or a link and the world).
    pub joints: Vec<Joint>,
    /// Nested models.
    pub models: Vec<Model>,
    /// `<frame>`s of the model; their resolved `pose` is in this model's frame.
    pub frames: Vec<Frame>,
    /// Segmentation label from a `gz::sim::systems::Label` plugin on the model (see
    /// [`Visual::label`]).
    pub label: Option<u32>,
    /// Model plugins.
    pub plugins: Vec<PluginSpec>,
    /// `@namespace` (SDF 1.11+), or the `<namespace>` of the `<include>` that brought the
    /// model in, as written: a label for the model's topics and interfaces, which changes no
    /// name. `{name}` in it stands for the model's name (see [`Model::namespace`]).
    pub raw_namespace: Option<String>,
    /// Where `<model>` is.
    pub span: Span,
}

impl Model {
    /// The model's namespace with `{name}` replaced by the model's name, as libsdformat
    /// resolves it; None when neither the model nor its `<include>` gives one.
    pub fn namespace(&self) -> Option<String> {
        self.raw_namespace
            .as_ref()
            .map(|ns| ns.replace("{name}", &self.name))
    }
}

/// A `<joint>` between two links of a model.
#[derive(Clone, Debug, PartialEq)]
pub struct Joint {
    /// `<joint name>`.
    pub name: String,
    /// `<joint type>`.
    pub kind: JointKind,
    /// `<parent>` as written: a link, frame, joint or nested model in scope (`a::b::link`),
    /// or `world`.
    pub parent: String,
    /// `<child>` as written (never `world`).
    pub child: String,
    /// The link `parent` resolves to (named relative to the joint's model, `nested::link`
    /// for a link of a nested model; scoped from the world for world joints), or `world`.
    pub parent_link: String,
    /// The link `child` resolves to, named as `parent_link`.
    pub child_link: String,
    /// Resolved pose of the joint frame in the frame of `child_link`.
    pub pose: Pose,
    /// The pose as written (its default frame is `child`).
    pub raw_pose: RawPose,
    /// `<axis>` (every joint type that moves along or about an axis; kept as written on fixed
    /// and ball joints, where the engine ignores it).
    pub axis: Option<JointAxis>,
    /// `<axis2>`: the second axis of universal, revolute2 and gearbox joints (kept as written
    /// on other joints, where the engine ignores it).
    pub axis2: Option<JointAxis>,
    /// Screw joints: the thread pitch in metres of travel along the axis per revolution,
    /// positive for a right-handed thread (`<screw_thread_pitch>`, SDF 1.10+; read from the
    /// older `<thread_pitch>`, in radians per metre of a left-handed thread, as
    /// `-2*pi / thread_pitch`). Default 1.
    pub screw_thread_pitch: f64,
    /// Gearbox joints: `<gearbox_ratio>` (default 1). The parent turns about `axis` and the
    /// child about `axis2`, both relative to the reference body, with
    /// `parent_angle = -ratio * child_angle`.
    pub gearbox_ratio: f64,
    /// Gearbox joints: `<gearbox_reference_body>` as written (a link or frame in scope).
    pub gearbox_reference_body: String,
    /// Gearbox joints: the link `gearbox_reference_body` resolves to (named as `parent_link`),
    /// or `world`; empty for other joints.
    pub gearbox_reference_link: String,
    /// `<sensor>` elements of the joint (force-torque sensors live here). Their poses are in
    /// the joint frame; the engine attaches them to the child link.
    pub sensors: Vec<SensorSpec>,
    /// Where it is.
    pub span: Span,
}

/// The SDF joint types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// One rotation about the axis, within limits.
    Revolute,
    /// A revolute joint without limits.
    Continuous,
    /// One translation along the axis, within limits.
    Prismatic,
    /// No relative motion.
    Fixed,
    /// Free rotation about the joint origin.
    Ball,
    /// Rotation about `axis` (fixed in the parent) and `axis2` (fixed in the child), which
    /// must be perpendicular; no rotation about the third direction.
    Universal,
    /// Two revolute axes in series: `axis` fixed in the parent, `axis2` fixed in the child
    /// (any two non-parallel directions).
    Revolute2,
    /// Rotation about the axis coupled with translation along it (`screw_thread_pitch`).
    Screw,
    /// Couples the rotation of the parent about `axis` and of the child about `axis2`, both
    /// relative to the reference body (`gearbox_ratio`); no other constraint.
    Gearbox,
}

impl JointKind {
    /// The SDF name.
    pub fn name(self) -> &'static str {
        match self {
            JointKind::Revolute => "revolute",
            JointKind::Continuous => "continuous",
            JointKind::Prismatic => "prismatic",
            JointKind::Fixed => "fixed",
            JointKind::Ball => "ball",
            JointKind::Universal => "universal",
            JointKind::Revolute2 => "revolute2",
            JointKind::Screw => "screw",
            JointKind::Gearbox => "gearbox",
        }
    }
}

/// `<axis>`: direction, limits and dynamics.
#[derive(Clone, Debug, PartialEq)]
pub struct JointAxis {
    /// Unit direction as written (normalised), in the frame `expressed_in`.
    pub xyz: Vec3,
    /// The frame `xyz` is written in: empty for the joint frame, else a frame in scope.
    /// SDF 1.4 axes and `use_parent_model_frame` (1.5, 1.6) read as `__model__`.
    pub expressed_in: String,
    /// Where `expressed_in` is written (its value in `<xyz expressed_in="...">`), for the
    /// errors about it; `None` when it is not written.
    pub expressed_in_span: Option<Span>,
    /// The resolved unit direction in the joint frame.
    pub xyz_in_joint: Vec3,
    /// Lower limit (rad or m; -inf: none).
    pub lower: f64,
    /// Upper limit (rad or m; +inf: none).
    pub upper: f64,
    /// Largest force or torque (+inf: unlimited).
    pub effort: f64,
    /// Largest speed (+inf: unlimited).
    pub velocity: f64,
    /// Viscous damping coefficient.
    pub damping: f64,
    /// Coulomb friction.
    pub friction: f64,
    /// Spring reference position.
    pub spring_reference: f64,
    /// Spring stiffness.
    pub spring_stiffness: f64,
}

/// A link: one rigid body.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// `<link name>`.
    pub name: String,
    /// Resolved pose relative to the model frame.
    pub pose: Pose,
    /// The pose as written (default frame: the model frame).
    pub raw_pose: RawPose,
    /// Mass properties.
    pub inertial: Inertial,
    /// `<gravity>` (default true).
    pub gravity: bool,
    /// `<kinematic>` (default false).
    pub kinematic: bool,
    /// `<self_collide>` of the link, when written (otherwise the model's applies): two links
    /// of one model touch when either self-collides, unless a joint joins them.
    pub self_collide: Option<bool>,
    /// `<velocity_decay>`.
    pub velocity_decay: VelocityDecay,
    /// Collision elements.
    pub collisions: Vec<Collision>,
    /// Visual elements.
    pub visuals: Vec<Visual>,
    /// Sensors attached to the link.
    pub sensors: Vec<SensorSpec>,
    /// `<plugin>`s in the link: system plugins attached to it (SDF has none there, and
    /// libsdformat keeps them with a warning; simcore loads them as for a model).
    pub plugins: Vec<PluginSpec>,
    /// Where `<link>` is.
    pub span: Span,
}

/// `<inertial>`.
#[derive(Clone, Debug, PartialEq)]
pub struct Inertial {
    /// Mass, kg (default 1).
    pub mass: f64,
    /// Resolved pose of the centre of mass and inertia frame relative to the link.
    pub pose: Pose,
    /// The pose as written (default frame: the link).
    pub raw_pose: RawPose,
    /// Inertia tensor `[ixx, ixy, ixz, iyy, iyz, izz]` about the centre of mass, in the
    /// inertial frame (default identity).
    pub inertia: [f64; 6],
    /// `<inertial auto="true">` (SDF 1.11): the mass properties are computed from the link's
    /// collisions once they are posed (see [`AutoInertia`]); `mass`, `pose` and `inertia` then
    /// hold the result.
    pub auto: Option<AutoInertia>,
}

/// What automatic inertia is computed from: each collision's shape at its pose, with its
/// density (the collision's `<density>`, else the inertial's `<density>`, else 1000 kg/m³),
/// summed with the parallel axis theorem, as libsdformat does.
#[derive(Clone, Debug, PartialEq)]
pub struct AutoInertia {
    /// `<mass>` written beside `auto="true"`: the result is scaled to it (as if every density
    /// were scaled alike). `None`: the mass is what the densities give.
    pub mass: Option<f64>,
    /// The density of each collision, in the order of `Link::collisions`, kg/m³.
    pub densities: Vec<f64>,
    /// For each collision (same order) whose shape is a mesh: the solid the closed mesh
    /// encloses, read from its file when the link is read; `None` for the other shapes,
    /// whose mass properties are computed from their sizes.
    pub solids: Vec<Option<Solid>>,
}

/// The mass properties of a solid of density 1 kg/m³ in its shape's frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Solid {
    /// Volume, m³ (also the mass at 1 kg/m³).
    pub volume: f64,
    /// Centre of mass (the centroid of the volume), m.
    pub centroid: Vec3,
    /// Inertia tensor `[ixx, ixy, ixz, iyy, iyz, izz]` about the centroid, along the shape's
    /// axes, for a density of 1 kg/m³ (kg·m²).
    pub inertia: [f64; 6],
}

impl Default for Inertial {
    fn default() -> Self {
        Inertial {
            mass: 1.0,
            pose: Pose::IDENTITY,
            raw_pose: RawPose::default(),
            inertia: [1.0, 0.0, 0.0, 1.0, 0.0, 1.0],
            auto: None,
        }
    }
}

/// A `<collision>`.
#[derive(Clone, Debug, PartialEq)]
pub struct Collision {
    /// Name.
    pub name: String,
    /// Resolved pose relative to the link.
    pub pose: Pose,
    /// The pose as written (default frame: the link).
    pub raw_pose: RawPose,
    /// Shape.
    pub geometry: Geometry,
    /// `<laser_retro>`.
    pub laser_retro: f64,
    /// `<surface>` (SDF's defaults when absent).
    pub surface: Surface,
    /// Where it is.
    pub span: Span,
}

/// A `<visual>`.
#[derive(Clone, Debug, PartialEq)]
pub struct Visual {
    /// Name.
    pub name: String,
    /// Resolved pose relative to the link.
    pub pose: Pose,
    /// The pose as written (default frame: the link).
    pub raw_pose: RawPose,
    /// Shape.
    pub geometry: Geometry,
    /// `<material><diffuse>` RGBA (default opaque mid grey).
    pub diffuse: [f32; 4],
    /// `<laser_retro>`.
    pub laser_retro: f64,
    /// Segmentation label from a `gz::sim::systems::Label` plugin on the visual. A visual
    /// without one takes the label of its nearest enclosing model that has one.
    pub label: Option<u32>,
    /// `<visibility_flags>` (default every bit): cameras and visual-geometry lidars whose
    /// `<visibility_mask>` shares no bit with them do not see the visual.
    pub visibility_flags: u32,
    /// The temperature a `gz::sim::systems::Thermal` plugin on the visual gives it.
    pub thermal: Option<VisualThermal>,
    /// Where it is.
    pub span: Span,
}

/// What a `gz::sim::systems::Thermal` plugin on a visual says of its temperature.
#[derive(Clone, Debug, PartialEq)]
pub enum VisualThermal {
    /// `<temperature>`: one temperature, K (below 0 K kept as written).
    Uniform(f64),
    /// `<heat_signature>` (which wins over a `<temperature>`, as in gz-sim): a texture
    /// mapped onto `<min_temp>`..`<max_temp>` (each the ambient temperature when absent).
    HeatSignature {
        /// The texture as written.
        texture: String,
        /// `<min_temp>`, K.
        min: Option<f64>,
        /// `<max_temp>`, K.
        max: Option<f64>,
    },
}

/// `<geometry>`.
#[derive(Clone, Debug, PartialEq)]
pub enum Geometry {
    /// `<box><size>`.
    Box {
        /// Edge lengths.
        size: Vec3,
    },
    /// `<sphere><radius>`.
    Sphere {
        /// Radius.
        radius: f64,
    },
    /// `<cylinder>` along the local Z axis.
    Cylinder {
        /// Radius.
        radius: f64,
        /// Length.
        length: f64,
    },
    /// `<capsule>` along the local Z axis.
    Capsule {
        /// Radius.
        radius: f64,
        /// Length of the cylindrical part.
        length: f64,
    },
    /// `<ellipsoid><radii>`.
    Ellipsoid {
        /// Semi-axes.
        radii: Vec3,
    },
    /// `<plane>`: an infinite plane (the size is for display only).
    Plane {
        /// Normal.
        normal: Vec3,
        /// Visual size.
        size: [f64; 2],
    },
    /// `<cone>` along the local Z axis, centred on the origin (base at `-length/2`).
    Cone {
        /// Radius of the base.
        radius: f64,
        /// Height.
        length: f64,
    },
    /// `<mesh>`: triangles read from an STL, OBJ or COLLADA file when the world is built.
    Mesh(MeshShape),
    /// `<heightmap>`: a height field from a grey-scale image.
    Heightmap(HeightmapShape),
    /// One or more `<polyline>`s, extruded along the local Z axis from 0 to their height.
    /// A polyline inside another is a hole in it.
    Polyline(Vec<Polyline>),
    /// `<empty>`.
    Empty,
}

/// A file named by a geometry (`<uri>`), as written and as found.
#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    /// The URI exactly as written in the SDF.
    pub uri: String,
    /// The file it names, or why none was found (with the places searched).
    pub resolved: Result<PathBuf, String>,
}

/// `<mesh>`.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshShape {
    /// `<uri>`.
    pub resource: Resource,
    /// `<scale>`, applied to the vertices in the mesh frame.
    pub scale: Vec3,
    /// `<submesh><name>`: use only this mesh of the file.
    pub submesh: Option<String>,
    /// `<submesh><center>`: move the submesh so that its bounding-box centre is the origin.
    pub center_submesh: bool,
}

/// `<heightmap>`.
#[derive(Clone, Debug, PartialEq)]
pub struct HeightmapShape {
    /// `<uri>` of the image.
    pub resource: Resource,
    /// `<size>`: extent in x and y, height of the brightest pixel in z.
    pub size: Vec3,
    /// `<pos>`: where the centre of the terrain's base lies in the collision frame.
    pub pos: Vec3,
}

/// One `<polyline>`: a closed polygon in the XY plane, extruded up to `height`.
#[derive(Clone, Debug, PartialEq)]
pub struct Polyline {
    /// `<point>`s, in order (the last joins the first).
    pub points: Vec<[f64; 2]>,
    /// `<height>`.
    pub height: f64,
}

/// A `<sensor>`: the common fields; the type-specific element stays in `sdf` for the plugin.
#[derive(Clone, Debug, PartialEq)]
pub struct SensorSpec {
    /// `<sensor name>`.
    pub name: String,
    /// `<sensor type>` as written (aliases such as `ray` are kept; the loader maps them).
    pub sensor_type: String,
    /// For `type="custom"`, its `gz:type` (as gz-sim reads it): the sensor type that the
    /// library serving it is looked up by.
    pub custom_type: Option<String>,
    /// Resolved pose relative to the link (for a joint's sensor: the joint frame).
    pub pose: Pose,
    /// The pose as written (default frame: the link or joint).
    pub raw_pose: RawPose,
    /// `<always_on>`: read, but (as in Gazebo) it does not gate updates.
    pub always_on: bool,
    /// `<update_rate>`, Hz (0: every step; negative values become 0).
    pub update_rate: f64,
    /// `<visualize>`.
    pub visualize: bool,
    /// `<topic>` (None for the default name).
    pub topic: Option<String>,
    /// A contact sensor's `<contact><topic>`: its topic, as gz-sim's Contact system reads it
    /// (a contact sensor does not use `<topic>`).
    pub contact_topic: Option<String>,
    /// `<frame_id>` (None: the scoped sensor name).
    pub frame_id: Option<String>,
    /// `<enable_metrics>`.
    pub enable_metrics: bool,
    /// `<active>` (simcore; default true): an inactive sensor never updates.
    pub active: bool,
    /// `<triggered>` (sensor-level, or inside `<camera>`).
    pub triggered: bool,
    /// `<trigger_topic>` (default `<topic>/trigger`).
    pub trigger_topic: Option<String>,
    /// `<visibility_mask>` of its `<camera>`, `<lidar>` or `<ray>` (default every bit): the
    /// visuals it sees are those whose `<visibility_flags>` share a bit with it.
    pub visibility_mask: u32,
    /// The whole `<sensor>` element as XML text.
    pub sdf: String,
    /// Sensor plugins (`<plugin>` inside the sensor).
    pub plugins: Vec<PluginSpec>,
    /// Where it is.
    pub span: Span,
}

/// A `<plugin filename name>`.
#[derive(Clone, Debug, PartialEq)]
pub struct PluginSpec {
    /// `filename`: the library (a bare name, resolved on the plugin search path).
    pub filename: String,
    /// `name`: the factory / class name.
    pub name: String,
    /// The whole `<plugin>` element as XML text.
    pub sdf: String,
    /// Where it is.
    pub span: Span,
}

impl World {
    /// Visits every model, depth first, with its scoped name (`a::b::c`).
    pub fn visit_models<'a>(&'a self, mut f: impl FnMut(&str, &'a Model)) {
        fn rec<'a>(prefix: &str, m: &'a Model, f: &mut impl FnMut(&str, &'a Model)) {
            let scoped = if prefix.is_empty() {
                m.name.clone()
            } else {
                format!("{prefix}::{}", m.name)
            };
            f(&scoped, m);
            for n in &m.models {
                rec(&scoped, n, f);
            }
        }
        for m in &self.models {
            rec("", m, &mut f);
        }
    }
}
