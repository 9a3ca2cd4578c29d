//! The resolution of a model's and the world's scope (see the module documentation of
//! `frames`).

use super::exported::exported_frames;
use super::scope::{
    Item, Kind, Scope, frame_items, joint_items, model_item, placement_post, unique_names,
};
use crate::error::{ErrorKind, SdfError};
use crate::inertia::{AutoInertiaError, auto_inertial, inertia_problem};
use crate::reader::Reader;
use sim_world::{Frame, Joint, Model, Pose, Span, Vec3, World};

impl Reader<'_> {
    /// Resolves the scope of `m`, whose nested models are already resolved: checks names,
    /// the canonical link, frames, joints and axes, and writes every resolved pose (see the
    /// module documentation). `m.pose` becomes the raw pose with the placement frame applied.
    /// `top_level`: `m` is a model of the world or of a model file, not a nested one.
    pub(crate) fn resolve_model(&self, m: &mut Model, top_level: bool) -> Result<(), SdfError> {
        let scope_label = format!("model \"{}\"", m.name);
        {
            let fixed_owned: Vec<(String, Span, &str)> = m
                .links
                .iter()
                .map(|l| (l.name.clone(), l.span.clone(), "link"))
                .chain(
                    m.models
                        .iter()
                        .map(|n| (n.name.clone(), n.span.clone(), "model")),
                )
                .collect();
            let fixed_ref: Vec<(&str, &Span, &str)> = fixed_owned
                .iter()
                .map(|(n, s, k)| (n.as_str(), s, *k))
                .collect();
            unique_names(self, &scope_label, &fixed_ref, &mut m.joints, &mut m.frames)?;
        }
        let what = format!("<model name=\"{}\">", m.name);

        // The canonical link.
        let written = m.canonical_link.clone();
        // SDF 1.7 brought the attribute; libsdformat honours it in older files too.
        if !written.is_empty() {
            let ok = m.links.iter().any(|l| l.name == written)
                || written.split_once("::").is_some_and(|(head, rest)| {
                    m.models.iter().any(|n| {
                        n.name == head
                            && exported_frames(n).get(rest).is_some_and(|e| e.body == rest)
                    })
                });
            if !ok {
                let links: Vec<&str> = m.links.iter().map(|l| l.name.as_str()).collect();
                return Err(self.error_span(
                    &m.span,
                    what,
                    ErrorKind::UnknownReference,
                    format!(
                        "canonical_link \"{written}\" is not a link of model \"{}\"",
                        m.name
                    ),
                    if links.is_empty() {
                        "name a link of the model, or of a nested model as `nested::link`"
                            .to_string()
                    } else {
                        format!(
                            "name one of its links ({}), or a nested model's as `nested::link`",
                            links.join(", ")
                        )
                    },
                ));
            }
        } else {
            m.canonical_link = match m.links.first() {
                Some(l) => l.name.clone(),
                None => m
                    .models
                    .iter()
                    .find(|n| !n.canonical_link.is_empty())
                    .map(|n| format!("{}::{}", n.name, n.canonical_link))
                    .unwrap_or_default(),
            };
        }
        // As libsdformat (every version): a model that is not static needs a link, or a
        // nested model (which needs one in turn), for its frame to be attached to.
        if m.links.is_empty() && m.models.is_empty() && !m.is_static {
            return Err(self.error_span(
                &m.span,
                what,
                ErrorKind::Missing,
                format!("model \"{}\" has no link", m.name),
                "add a <link> (a model that is not static needs one), or make the model <static>true</static>",
            ));
        }

        // The scope.
        let mut items = Vec::new();
        for l in &m.links {
            items.push(Item {
                name: l.name.clone(),
                what: format!("<link name=\"{}\">", l.name),
                kind: Kind::Link,
                raw: l.raw_pose.clone(),
                default_to: "__model__".into(),
                post: Pose::IDENTITY,
                span: l.span.clone(),
            });
        }
        for n in &m.models {
            items.push(model_item(self, n, "__model__")?);
        }
        items.extend(frame_items(&m.frames, "__model__"));
        items.extend(joint_items(&m.joints));
        let mut s = Scope::new(
            self,
            "__model__",
            Some(m.name.clone()),
            m.canonical_link.clone(),
            items,
        );
        self.resolve_scope(&mut s, &mut m.joints, &mut m.frames, top_level)?;

        // Poses of the scope's members.
        for l in m.links.iter_mut() {
            let i = s.index[&l.name];
            l.pose = s.pose_of(i)?;
        }
        for n in m.models.iter_mut() {
            let i = s.index[&n.name];
            n.pose = s.pose_of(i)?;
        }
        // Link-level elements, each on its own so that every one with an error is reported.
        let mut errors = Vec::new();
        let mut keep = |pose: &mut Pose, resolved: Result<Pose, SdfError>| match resolved {
            Ok(p) => *pose = p,
            Err(e) => errors.push(e),
        };
        for l in m.links.iter_mut() {
            let x_ml = l.pose;
            let lw = format!("<link name=\"{}\">", l.name);
            let inertial = s.child_pose(&l.inertial.raw_pose, &l.name, x_ml, &lw);
            keep(&mut l.inertial.pose, inertial);
            for c in l.collisions.iter_mut() {
                let w = format!("<collision name=\"{}\">", c.name);
                keep(&mut c.pose, s.child_pose(&c.raw_pose, &l.name, x_ml, &w));
            }
            if let Some(auto) = &l.inertial.auto {
                let computed =
                    auto_inertial(&l.collisions, auto).and_then(|(mass, com, inertia)| {
                        match inertia_problem(inertia) {
                            Some(problem) => Err(AutoInertiaError::Tensor(problem)),
                            None => Ok((mass, com, inertia)),
                        }
                    });
                let (mass, com, inertia) = computed.map_err(|why| {
                    self.error_span(
                        &l.span,
                        lw.clone(),
                        ErrorKind::Invalid,
                        format!(
                            "link \"{}\": the automatic inertia is invalid: {why}",
                            l.name
                        ),
                        "check the sizes and densities of its collisions, or give <mass> and \
                         <inertia> explicitly",
                    )
                })?;
                l.inertial.mass = mass;
                l.inertial.pose = Pose::new(com, sim_world::Quat::IDENTITY);
                l.inertial.inertia = inertia;
            }
            for v in l.visuals.iter_mut() {
                let w = format!("<visual name=\"{}\">", v.name);
                keep(&mut v.pose, s.child_pose(&v.raw_pose, &l.name, x_ml, &w));
            }
            for x in l.sensors.iter_mut() {
                let w = format!("<sensor name=\"{}\">", x.name);
                keep(&mut x.pose, s.child_pose(&x.raw_pose, &l.name, x_ml, &w));
            }
        }
        SdfError::from_all(errors)?;
        m.pose = m.raw_pose.pose.compose(placement_post(self, m)?);
        Ok(())
    }

    /// Resolves the world's scope: its models' poses (relative_to, placement frames), its
    /// frames and its joints.
    pub(crate) fn resolve_world(&self, w: &mut World) -> Result<(), SdfError> {
        {
            let fixed_owned: Vec<(String, Span)> = w
                .models
                .iter()
                .map(|n| (n.name.clone(), n.span.clone()))
                .collect();
            let fixed: Vec<(&str, &Span, &str)> = fixed_owned
                .iter()
                .map(|(n, s)| (n.as_str(), s, "model"))
                .collect();
            unique_names(self, "the world", &fixed, &mut w.joints, &mut w.frames)?;
        }
        let mut items = Vec::new();
        for m in &w.models {
            items.push(model_item(self, m, "world")?);
        }
        items.extend(frame_items(&w.frames, "world"));
        items.extend(joint_items(&w.joints));
        let mut s = Scope::new(self, "world", None, String::new(), items);
        self.resolve_scope(&mut s, &mut w.joints, &mut w.frames, true)?;
        for m in w.models.iter_mut() {
            let i = s.index[&m.name];
            m.pose = s.pose_of(i)?;
        }
        Ok(())
    }

    /// What the world and models share: frames (bodies and poses) and joints (links, poses,
    /// sensors and axes). `top_level`: the world's scope or a top-level model's, whose joints
    /// libsdformat checks for a parent and child on one link.
    fn resolve_scope(
        &self,
        s: &mut Scope,
        joints: &mut [Joint],
        frames: &mut [Frame],
        top_level: bool,
    ) -> Result<(), SdfError> {
        // Each frame and each joint is resolved on its own, so that every one with an error is
        // reported.
        let mut errors = Vec::new();
        for f in frames.iter_mut() {
            let i = s.index[&f.name];
            let resolved = match s.body_of(i) {
                Ok(body) => s.pose_of(i).map(|pose| (body, pose)),
                Err(e) => Err(e),
            };
            match resolved {
                Ok((body, pose)) => {
                    f.attached_to_body = body;
                    f.pose = pose;
                }
                Err(e) => errors.push(e),
            }
        }
        let mut joint = |j: &mut Joint| -> Result<(), SdfError> {
            j.parent_link = s.joint_link(j, "parent")?;
            j.child_link = s.joint_link(j, "child")?;
            let what = format!("<joint name=\"{}\">", j.name);
            if j.parent_link == j.child_link {
                // libsdformat refuses this for the joints of the world and of top-level
                // models (JOINT_PARENT_SAME_AS_CHILD); a nested model's it loads. Such a
                // joint joins nothing, so the world runs without it (the physics skips it).
                let message = format!(
                    "joint \"{}\": the parent \"{}\" and the child \"{}\" are both link \"{}\"",
                    j.name, j.parent, j.child, j.child_link
                );
                let hint = "the parent and the child must be attached to different links";
                if top_level {
                    return Err(self.error_span(&j.span, what, ErrorKind::Invalid, message, hint));
                }
                self.loader.warn(self.error_span(
                    &j.span,
                    what.clone(),
                    ErrorKind::Invalid,
                    format!("{message}: the joint is skipped"),
                    hint,
                ));
            }
            let i = s.index[&j.name];
            let x_mj = s.pose_of(i)?;
            let x_mc = s.frame_pose(&j.child_link.clone(), &j.span, &what, "<child>")?;
            j.pose = x_mc.inverse().compose(x_mj);
            for x in j.sensors.iter_mut() {
                let w = format!("<sensor name=\"{}\">", x.name);
                x.pose = s.child_pose(&x.raw_pose, &j.name, x_mj, &w)?;
            }
            for (a, which) in [(j.axis.as_mut(), "axis"), (j.axis2.as_mut(), "axis2")] {
                let Some(a) = a else { continue };
                a.xyz_in_joint = if a.expressed_in.is_empty() || a.expressed_in == j.name {
                    a.xyz
                } else {
                    // At the attribute when it is written (SDF 1.4 axes and
                    // use_parent_model_frame name __model__ without one).
                    let (span, element) = match &a.expressed_in_span {
                        Some(span) => (
                            span.clone(),
                            format!(
                                "<xyz expressed_in=\"{}\"> in <{which}> of {what}",
                                a.expressed_in
                            ),
                        ),
                        None => (j.span.clone(), what.clone()),
                    };
                    let x_me = s.frame_pose(
                        &a.expressed_in.clone(),
                        &span,
                        &element,
                        &format!("the {which}'s expressed_in"),
                    )?;
                    let v: Vec3 = x_me.orientation.rotate(a.xyz);
                    x_mj.orientation.inverse().rotate(v)
                };
            }
            if !j.gearbox_reference_body.is_empty() {
                j.gearbox_reference_link = s.joint_link(j, "gearbox_reference_body")?;
            }
            Ok(())
        };
        for j in joints.iter_mut() {
            if let Err(e) = joint(j) {
                errors.push(e);
            }
        }
        SdfError::from_all(errors)
    }
}
