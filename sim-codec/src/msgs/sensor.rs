//! `sensor_msgs` of one reading: `IMU`, `NavSat`, `Magnetometer`, `FluidPressure` and
//! `BatteryState`.

use crate::catalog as t;
use crate::json::values::{self as json, num, nums};
use crate::kinds::entry::{Kind, Reader};
use crate::read::{self as de, stamped};
use crate::write::{self as en, cdr};
use crate::{CdrReader, DecodeError};
use serde_json::json;
use sim_plugin_api::abi_stable::std_types::RBox;
use sim_plugin_api::{BatteryState, Header, Imu, NavSat, Payload};

/// `sensor_msgs/msg/Imu`: without orientation, orientation covariance `[-1, 0, ...]`; read
/// back with `has_orientation` unless `orientation_covariance[0]` is -1.
pub(crate) const IMU: Kind = Kind {
    name: "IMU",
    ros: &[&t::IMU],
    read_from: Some(&t::IMU),
    reads: &[Reader {
        ty: &t::IMU,
        read: |r| stamped(r, |r, _| Ok(Payload::Imu(RBox::new(read_imu(r)?)))),
    }],
    encode: |p, h, _, out| match p {
        Payload::Imu(m) => cdr(out, &t::IMU, |w| {
            en::header(w, h);
            en::quaternion(w, &m.orientation);
            if m.has_orientation {
                w.f64_array(&m.orientation_covariance);
            } else {
                // REP-145 / sensor_msgs: element 0 is -1 when the orientation is not estimated.
                let mut c = [0.0; 9];
                c[0] = -1.0;
                w.f64_array(&c);
            }
            en::vector3(w, &m.angular_velocity);
            w.f64_array(&m.angular_velocity_covariance);
            en::vector3(w, &m.linear_acceleration);
            w.f64_array(&m.linear_acceleration_covariance);
        }),
        _ => None,
    },
    json: |p| match p {
        Payload::Imu(i) => {
            let mut o = json!({
                "entity_name": i.entity_name.as_str(),
                "angular_velocity": json::vec3(i.angular_velocity),
                "angular_velocity_covariance": nums(&i.angular_velocity_covariance),
                "linear_acceleration": json::vec3(i.linear_acceleration),
                "linear_acceleration_covariance": nums(&i.linear_acceleration_covariance),
            });
            if i.has_orientation {
                o["orientation"] = json::quat(i.orientation);
                o["orientation_covariance"] = nums(&i.orientation_covariance);
            }
            Some(o)
        }
        _ => None,
    },
    from_json: None,
};

/// `sensor_msgs/msg/NavSatFix`: status `STATUS_FIX`, service `SERVICE_GPS`, covariance type
/// `UNKNOWN` (all 0); the frame is the header's, or the payload's when the header has none;
/// velocity is not part of the type. Read back without status and covariance.
pub(crate) const NAV_SAT: Kind = Kind {
    name: "NavSat",
    ros: &[&t::NAV_SAT_FIX],
    read_from: Some(&t::NAV_SAT_FIX),
    reads: &[Reader {
        ty: &t::NAV_SAT_FIX,
        read: |r| {
            stamped(r, |r, h| {
                Ok(Payload::NavSat(RBox::new(read_nav_sat(r, h)?)))
            })
        },
    }],
    encode: |p, h, _, out| match p {
        Payload::NavSat(m) => cdr(out, &t::NAV_SAT_FIX, |w| {
            if h.frame_id.is_empty() {
                en::header(
                    w,
                    &Header {
                        frame_id: m.frame_id.clone(),
                        ..h.clone()
                    },
                );
            } else {
                en::header(w, h);
            }
            w.i8(0); // status.status: STATUS_FIX
            w.u16(1); // status.service: SERVICE_GPS
            w.f64(m.latitude_deg);
            w.f64(m.longitude_deg);
            w.f64(m.altitude);
            w.f64_array(&[0.0; 9]);
            w.u8(0); // position_covariance_type: COVARIANCE_TYPE_UNKNOWN
        }),
        _ => None,
    },
    json: |p| match p {
        Payload::NavSat(n) => Some(json!({
            "latitude_deg": num(n.latitude_deg), "longitude_deg": num(n.longitude_deg), "altitude": num(n.altitude),
            "velocity_east": num(n.velocity_east), "velocity_north": num(n.velocity_north), "velocity_up": num(n.velocity_up),
            "frame_id": n.frame_id.as_str(),
        })),
        _ => None,
    },
    from_json: None,
};

/// `sensor_msgs/msg/MagneticField` (tesla; covariance 0, unknown).
pub(crate) const MAGNETOMETER: Kind = Kind {
    name: "Magnetometer",
    ros: &[&t::MAGNETIC_FIELD],
    read_from: Some(&t::MAGNETIC_FIELD),
    reads: &[Reader {
        ty: &t::MAGNETIC_FIELD,
        read: |r| {
            stamped(r, |r, _| {
                let field = de::vector3(r, "magnetic_field")?;
                r.array::<f64, 9>("magnetic_field_covariance")?;
                Ok(Payload::Magnetometer(field))
            })
        },
    }],
    encode: |p, h, _, out| match p {
        Payload::Magnetometer(v) => cdr(out, &t::MAGNETIC_FIELD, |w| {
            en::header(w, h);
            en::vector3(w, v);
            w.f64_array(&[0.0; 9]); // 0: covariance unknown
        }),
        _ => None,
    },
    json: |p| match p {
        Payload::Magnetometer(f) => Some(json!({"field_tesla": json::vec3(*f)})),
        _ => None,
    },
    from_json: None,
};

/// `sensor_msgs/msg/FluidPressure`.
pub(crate) const FLUID_PRESSURE: Kind = Kind {
    name: "FluidPressure",
    ros: &[&t::FLUID_PRESSURE],
    read_from: Some(&t::FLUID_PRESSURE),
    reads: &[Reader {
        ty: &t::FLUID_PRESSURE,
        read: |r| {
            stamped(r, |r, _| {
                Ok(Payload::FluidPressure {
                    pressure: r.f64("fluid_pressure")?,
                    variance: r.f64("variance")?,
                })
            })
        },
    }],
    encode: |p, h, _, out| match p {
        Payload::FluidPressure { pressure, variance } => cdr(out, &t::FLUID_PRESSURE, |w| {
            en::header(w, h);
            w.f64(*pressure);
            w.f64(*variance);
        }),
        _ => None,
    },
    json: |p| match p {
        Payload::FluidPressure { pressure, variance } => {
            Some(json!({"pressure": num(*pressure), "variance": num(*variance)}))
        }
        _ => None,
    },
    from_json: None,
};

/// `sensor_msgs/msg/BatteryState`: `float32` fields, `design_capacity` = `capacity`,
/// temperature NaN (not measured), health and technology `UNKNOWN`, `present` true, no cells;
/// status values as ROS's (others: `UNKNOWN`).
pub(crate) const BATTERY_STATE: Kind = Kind {
    name: "BatteryState",
    ros: &[&t::BATTERY_STATE],
    read_from: Some(&t::BATTERY_STATE),
    reads: &[Reader {
        ty: &t::BATTERY_STATE,
        read: |r| {
            stamped(r, |r, _| {
                Ok(Payload::BatteryState(RBox::new(read_battery(r)?)))
            })
        },
    }],
    encode: |p, h, _, out| match p {
        Payload::BatteryState(m) => cdr(out, &t::BATTERY_STATE, |w| {
            en::header(w, h);
            w.f32(m.voltage as f32);
            w.f32(f32::NAN); // temperature: not measured
            w.f32(m.current as f32);
            w.f32(m.charge as f32);
            w.f32(m.capacity as f32);
            w.f32(m.capacity as f32); // design_capacity
            w.f32(m.percentage as f32);
            // The payload's status values are ROS's POWER_SUPPLY_STATUS_* (0 to 4).
            w.u8(u8::try_from(m.power_supply_status).map_or(0, |s| if s <= 4 { s } else { 0 }));
            w.u8(0); // power_supply_health: UNKNOWN
            w.u8(0); // power_supply_technology: UNKNOWN
            w.bool(true); // present
            w.sequence_len(0); // cell_voltage
            w.sequence_len(0); // cell_temperature
            w.string(""); // location
            w.string(""); // serial_number
        }),
        _ => None,
    },
    json: |p| match p {
        Payload::BatteryState(b) => Some(json!({
            "voltage": num(b.voltage), "current": num(b.current), "charge": num(b.charge),
            "capacity": num(b.capacity), "percentage": num(b.percentage), "power_supply_status": b.power_supply_status,
        })),
        _ => None,
    },
    from_json: None,
};

fn read_imu(r: &mut CdrReader<'_>) -> Result<Imu, DecodeError> {
    let orientation = de::quaternion(r, "orientation")?;
    let orientation_covariance = r.array("orientation_covariance")?;
    let angular_velocity = de::vector3(r, "angular_velocity")?;
    let angular_velocity_covariance = r.array("angular_velocity_covariance")?;
    let linear_acceleration = de::vector3(r, "linear_acceleration")?;
    let linear_acceleration_covariance = r.array("linear_acceleration_covariance")?;
    Ok(Imu {
        entity_name: Default::default(),
        has_orientation: orientation_covariance[0] != -1.0,
        orientation,
        orientation_covariance,
        angular_velocity,
        angular_velocity_covariance,
        linear_acceleration,
        linear_acceleration_covariance,
    })
}

fn read_nav_sat(r: &mut CdrReader<'_>, h: &Header) -> Result<NavSat, DecodeError> {
    let _status: i8 = r.read("status.status")?;
    let _service: u16 = r.read("status.service")?;
    let latitude_deg = r.f64("latitude")?;
    let longitude_deg = r.f64("longitude")?;
    let altitude = r.f64("altitude")?;
    r.array::<f64, 9>("position_covariance")?;
    let _covariance_type: u8 = r.read("position_covariance_type")?;
    Ok(NavSat {
        latitude_deg,
        longitude_deg,
        altitude,
        frame_id: h.frame_id.clone(),
        ..Default::default()
    })
}

fn read_battery(r: &mut CdrReader<'_>) -> Result<BatteryState, DecodeError> {
    let mut f = |field| r.read::<f32>(field).map(f64::from);
    let voltage = f("voltage")?;
    let _temperature = f("temperature")?;
    let current = f("current")?;
    let charge = f("charge")?;
    let capacity = f("capacity")?;
    let _design_capacity = f("design_capacity")?;
    let percentage = f("percentage")?;
    let power_supply_status = r.read::<u8>("power_supply_status")?.into();
    let _health: u8 = r.read("power_supply_health")?;
    let _technology: u8 = r.read("power_supply_technology")?;
    r.bool("present")?;
    r.seq::<f32>("cell_voltage")?;
    r.seq::<f32>("cell_temperature")?;
    r.string("location")?;
    r.string("serial_number")?;
    Ok(BatteryState {
        voltage,
        current,
        charge,
        capacity,
        percentage,
        power_supply_status,
    })
}
