//! The entity messages of `simulation_interfaces` simcore reads and writes: `EntityFilters`
//! (GetEntities) and `EntityState` (GetEntityState, SetEntityState), with their CDR.

use sim_codec::{CdrReader, CdrWriter, DecodeError};
use sim_plugin_api::{Pose, Quat, SimTime, Vec3};

/// `simulation_interfaces/msg/Bounds` type values.
pub mod bounds {
    /// No bounds (no overlap filter).
    pub const EMPTY: u8 = 0;
    /// An axis-aligned box given by two corners.
    pub const BOX: u8 = 1;
    /// A convex hull of three or more points.
    pub const CONVEX_HULL: u8 = 2;
    /// A sphere: its centre, then a point whose `x` is the radius.
    pub const SPHERE: u8 = 3;
}

/// The most points a `Bounds` may carry (a convex hull of more is refused unread).
pub const MAX_BOUND_POINTS: usize = 1024;

/// `simulation_interfaces/msg/EntityFilters`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EntityFilters {
    /// A regular expression the names must match (empty: every name).
    pub filter: String,
    /// `EntityCategory` values (empty: no category filter).
    pub categories: Vec<u8>,
    /// Tags (empty: no tag filter).
    pub tags: Vec<String>,
    /// `TagsFilter.filter_mode`.
    pub tags_mode: u8,
    /// `Bounds.type` (a [`bounds`] value).
    pub bounds_type: u8,
    /// `Bounds.points`.
    pub bounds_points: Vec<Vec3>,
}

impl EntityFilters {
    /// Reads the fields of an `EntityFilters`.
    pub fn read(r: &mut CdrReader<'_>) -> Result<EntityFilters, DecodeError> {
        let filter = r.string("filters.filter")?.to_string();
        let categories = r.seq::<u8>("filters.categories")?;
        let n = r.sequence_len(4, "filters.tags.tags")?;
        let tags = (0..n)
            .map(|_| r.string("filters.tags.tags").map(str::to_string))
            .collect::<Result<Vec<_>, _>>()?;
        let tags_mode = r.read::<u8>("filters.tags.filter_mode")?;
        let bounds_type = r.read::<u8>("filters.bounds.type")?;
        let n = r.sequence_len(24, "filters.bounds.points")?;
        if n > MAX_BOUND_POINTS {
            return Err(DecodeError::Invalid(format!(
                "filters.bounds.points: {n} points (at most {MAX_BOUND_POINTS})"
            )));
        }
        let bounds_points = (0..n)
            .map(|_| read_vec3(r, "filters.bounds.points"))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(EntityFilters {
            filter,
            categories,
            tags,
            tags_mode,
            bounds_type,
            bounds_points,
        })
    }

    /// Writes the fields of an `EntityFilters` (what [`EntityFilters::read`] reads).
    pub fn write(&self, w: &mut CdrWriter<'_>) {
        w.string(&self.filter);
        w.sequence_len(self.categories.len());
        for c in &self.categories {
            w.u8(*c);
        }
        w.sequence_len(self.tags.len());
        for t in &self.tags {
            w.string(t);
        }
        w.u8(self.tags_mode);
        w.u8(self.bounds_type);
        w.sequence_len(self.bounds_points.len());
        for p in &self.bounds_points {
            w.f64(p.x);
            w.f64(p.y);
            w.f64(p.z);
        }
    }
}

/// `simulation_interfaces/msg/EntityState`: pose, twist and acceleration of an entity's
/// frame in the frame of the header (empty: the world).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EntityState {
    /// `header.stamp`.
    pub stamp: SimTime,
    /// `header.frame_id`.
    pub frame: String,
    /// `pose`.
    pub pose: Pose,
    /// `twist.linear`, m/s.
    pub linear_velocity: Vec3,
    /// `twist.angular`, rad/s.
    pub angular_velocity: Vec3,
    /// `acceleration.linear`, m/s².
    pub linear_acceleration: Vec3,
    /// `acceleration.angular`, rad/s².
    pub angular_acceleration: Vec3,
}

impl EntityState {
    /// Reads the fields of an `EntityState`.
    pub fn read(r: &mut CdrReader<'_>) -> Result<EntityState, DecodeError> {
        let sec = r.read::<i32>("state.header.stamp.sec")?;
        let nanosec = r.read::<u32>("state.header.stamp.nanosec")?;
        let frame = r.string("state.header.frame_id")?.to_string();
        let position = read_vec3(r, "state.pose.position")?;
        let f = "state.pose.orientation";
        let orientation = Quat {
            x: r.f64(f)?,
            y: r.f64(f)?,
            z: r.f64(f)?,
            w: r.f64(f)?,
        };
        Ok(EntityState {
            stamp: SimTime::from_nanos(i64::from(sec) * 1_000_000_000 + i64::from(nanosec)),
            frame,
            pose: Pose {
                position,
                orientation,
            },
            linear_velocity: read_vec3(r, "state.twist.linear")?,
            angular_velocity: read_vec3(r, "state.twist.angular")?,
            linear_acceleration: read_vec3(r, "state.acceleration.linear")?,
            angular_acceleration: read_vec3(r, "state.acceleration.angular")?,
        })
    }

    /// Writes the fields of an `EntityState`.
    pub fn write(&self, w: &mut CdrWriter<'_>) {
        let ns = self.stamp.nanos;
        w.i32(ns.div_euclid(1_000_000_000).clamp(0, i64::from(i32::MAX)) as i32);
        w.u32(ns.rem_euclid(1_000_000_000) as u32);
        w.string(&self.frame);
        let p = self.pose.position;
        let q = self.pose.orientation;
        for v in [p.x, p.y, p.z, q.x, q.y, q.z, q.w] {
            w.f64(v);
        }
        for v in [
            self.linear_velocity,
            self.angular_velocity,
            self.linear_acceleration,
            self.angular_acceleration,
        ] {
            w.f64(v.x);
            w.f64(v.y);
            w.f64(v.z);
        }
    }
}

fn read_vec3(r: &mut CdrReader<'_>, field: &'static str) -> Result<Vec3, DecodeError> {
    Ok(Vec3 {
        x: r.f64(field)?,
        y: r.f64(field)?,
        z: r.f64(field)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entity_state_reads_back_what_it_writes() {
        let s = EntityState {
            stamp: SimTime::from_nanos(3_000_000_007),
            frame: "world".into(),
            pose: Pose {
                position: Vec3 {
                    x: 1.0,
                    y: 2.0,
                    z: 3.0,
                },
                orientation: Quat::IDENTITY,
            },
            linear_velocity: Vec3 {
                x: 0.5,
                y: 0.0,
                z: -1.0,
            },
            ..Default::default()
        };
        let mut b = Vec::new();
        s.write(&mut CdrWriter::new(&mut b));
        // header (8 + 4 + "world\0", padded to 24), 19 float64.
        assert_eq!(b.len(), 4 + 24 + 19 * 8);
        let mut r = CdrReader::new(&b).unwrap();
        assert_eq!(EntityState::read(&mut r), Ok(s));
        assert!(EntityState::read(&mut CdrReader::new(&b[..b.len() - 1]).unwrap()).is_err());
    }

    #[test]
    fn filters_are_read_and_huge_counts_refused() {
        let mut b = Vec::new();
        let mut w = CdrWriter::new(&mut b);
        w.string("^beacon");
        w.sequence_len(1);
        w.u8(5);
        w.sequence_len(1);
        w.string("red");
        w.u8(1);
        w.u8(bounds::SPHERE);
        w.sequence_len(2);
        for v in [1.0, 2.0, 3.0, 0.5, 0.0, 0.0] {
            w.f64(v);
        }
        let f = EntityFilters::read(&mut CdrReader::new(&b).unwrap()).unwrap();
        assert_eq!(f.filter, "^beacon");
        assert_eq!(
            (f.categories, f.tags, f.tags_mode),
            (vec![5], vec!["red".into()], 1)
        );
        assert_eq!((f.bounds_type, f.bounds_points.len()), (bounds::SPHERE, 2));
        assert_eq!(f.bounds_points[1].x, 0.5);
        let mut b = Vec::new();
        let mut w = CdrWriter::new(&mut b);
        w.string("");
        w.sequence_len(0);
        w.sequence_len(u32::MAX as usize);
        assert!(EntityFilters::read(&mut CdrReader::new(&b).unwrap()).is_err());
    }
}
