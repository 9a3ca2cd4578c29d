//! Sensors of links.

use super::support::*;
use crate::*;

use sim_world::{Pose, Quat};

#[test]
fn sensor_defaults() {
    let sensor = "<sensor name='imu' type='imu'/>";
    let text = doc("1.12", &model_with_link(sensor));
    let w = ok(&text);
    let s = &link_of(&w).sensors[0];
    assert_eq!((s.name.as_str(), s.sensor_type.as_str()), ("imu", "imu"));
    assert_eq!(s.pose, Pose::IDENTITY);
    assert!(!s.always_on && !s.visualize && !s.enable_metrics && !s.triggered);
    assert!(s.active);
    assert_eq!(s.update_rate, 0.0);
    assert_eq!(
        (s.topic.clone(), s.frame_id.clone(), s.trigger_topic.clone()),
        (None, None, None)
    );
    assert_eq!(s.sdf, sensor);
    assert!(s.plugins.is_empty());
    assert_eq!((s.span.line, s.span.column), pos_of(&text, "<sensor", 0));
}

#[test]
fn sensor_values() {
    let sensor = "<sensor name=\"lidar\" type=\"gpu_lidar\">\n\
          <pose>0 0 0.3 0 0 0</pose>\n\
          <always_on>1</always_on>\n\
          <update_rate>10</update_rate>\n\
          <visualize>true</visualize>\n\
          <topic>scan</topic>\n\
          <frame_id>lidar_frame</frame_id>\n\
          <enable_metrics>true</enable_metrics>\n\
          <active>false</active>\n\
          <triggered>true</triggered>\n\
          <trigger_topic>go</trigger_topic>\n\
          <lidar><scan><horizontal><samples>640</samples></horizontal></scan></lidar>\n\
          <plugin filename=\"noise\" name=\"n\"><stddev>0.01</stddev></plugin>\n\
        </sensor>";
    let w = ok_body(&model_with_link(sensor));
    let s = &link_of(&w).sensors[0];
    assert_eq!(s.sensor_type, "gpu_lidar");
    assert_pose(&s.pose, [0.0, 0.0, 0.3], Quat::IDENTITY);
    assert!(s.always_on && s.visualize && s.enable_metrics && s.triggered);
    assert!(!s.active);
    assert_eq!(s.update_rate, 10.0);
    assert_eq!(s.topic.as_deref(), Some("scan"));
    assert_eq!(s.frame_id.as_deref(), Some("lidar_frame"));
    assert_eq!(s.trigger_topic.as_deref(), Some("go"));
    assert_eq!(s.sdf, sensor);
    assert_eq!(s.plugins.len(), 1);
    assert_eq!(s.plugins[0].filename, "noise");
    assert_eq!(
        s.plugins[0].sdf,
        "<plugin filename=\"noise\" name=\"n\"><stddev>0.01</stddev></plugin>"
    );
}

#[test]
fn sensor_special_values() {
    let sensors = "<sensor name='a' type='imu'><update_rate>-5</update_rate><topic>__default__</topic>\
                     <gz_frame_id>old_frame</gz_frame_id></sensor>\
                   <sensor name='b' type='imu'><topic> </topic><frame_id/>\
                     <gz_frame_id>ignored?</gz_frame_id></sensor>\
                   <sensor name='c' type='camera'><camera><triggered>true</triggered>\
                     <trigger_topic>/cam/trigger</trigger_topic></camera></sensor>\
                   <sensor name='d' type='camera'><triggered>false</triggered><trigger_topic>own</trigger_topic>\
                     <camera><triggered>true</triggered><trigger_topic>cam</trigger_topic></camera></sensor>";
    let w = ok_body(&model_with_link(sensors));
    let s = &link_of(&w).sensors;
    assert_eq!(s[0].update_rate, 0.0);
    assert_eq!(s[0].topic, None);
    assert_eq!(s[0].frame_id.as_deref(), Some("old_frame"));
    assert_eq!(s[1].topic, None);
    // An empty <frame_id> falls back to the deprecated element.
    assert_eq!(s[1].frame_id.as_deref(), Some("ignored?"));
    assert!(s[2].triggered);
    assert_eq!(s[2].trigger_topic.as_deref(), Some("/cam/trigger"));
    assert!(!s[3].triggered);
    assert_eq!(s[3].trigger_topic.as_deref(), Some("own"));
}

#[test]
fn sensor_errors() {
    let text = doc(
        "1.12",
        &model_with_link("<sensor name='s' type='imu'><update_rate>fast</update_rate></sensor>"),
    );
    refused(
        &text,
        ErrorKind::Invalid,
        "fast",
        "<update_rate> expects a number, found \"fast\"",
    );
    let text = doc("1.12", &model_with_link("<sensor name='s'/>"));
    refused(&text, ErrorKind::Missing, "<sensor", "no `type` attribute");
    let text = doc("1.12", &model_with_link("<sensor type='imu'/>"));
    refused(&text, ErrorKind::Missing, "<sensor", "no `name` attribute");
    let text = doc(
        "1.12",
        &model_with_link("<sensor name='s' type='imu'><active>no</active></sensor>"),
    );
    refused(&text, ErrorKind::Invalid, "no<", "boolean");
    let text = doc(
        "1.12",
        &model_with_link("<sensor name='s' type='imu'/><sensor name='s' type='gps'/>"),
    );
    refused_nth(
        &text,
        ErrorKind::Duplicate,
        "s' type",
        1,
        "a <sensor> named \"s\"",
    );
    let text = doc(
        "1.12",
        &model_with_link("<sensor name='s' type='imu'><plugin name='p'/></sensor>"),
    );
    refused(&text, ErrorKind::Missing, "<plugin", "no `filename`");
}

#[test]
fn a_custom_sensor_keeps_its_gz_type() {
    let custom = |sensor: &str| {
        let w = ok(&doc("1.12", &model_with_link(sensor)));
        let s = link_of(&w).sensors[0].clone();
        (s.sensor_type, s.custom_type)
    };
    let want = ("custom".to_string(), Some("acme_sonar".to_string()));
    assert_eq!(
        custom("<sensor name='s' type='custom' gz:type=' acme_sonar'/>"),
        want
    );
    assert_eq!(
        custom(
            "<sensor name='s' type='custom' xmlns:gz='http://gazebosim.org/schema' gz:type='acme_sonar'/>"
        ),
        want
    );
    // Another prefix is not gz-sim's; gz:type on another type means nothing.
    assert_eq!(
        custom("<sensor name='s' type='custom' acme:type='acme_sonar'/>").1,
        None
    );
    assert_eq!(
        custom("<sensor name='s' type='imu' gz:type='acme_sonar'/>").1,
        None
    );
    assert_eq!(
        custom("<sensor name='s' type='custom' gz:type=''/>").1,
        None
    );
}
