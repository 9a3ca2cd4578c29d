//! The ROS 2 graph as rmw_zenoh announces it: the liveliness tokens of every node, publisher,
//! subscription, service server and client in a domain, read back into names and types.

use crate::keys::{EndpointKind, GRAPH, unmangle};
use std::collections::BTreeMap;

/// One endpoint of the graph: a publisher, subscription, service server or client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// What it is.
    pub kind: EndpointKind,
    /// The Zenoh session it belongs to.
    pub zid: String,
    /// Its node's fully qualified name (`/simcore`, `/ns/talker`).
    pub node: String,
    /// The topic or service name (`/scan`).
    pub name: String,
    /// The DDS type name (`sensor_msgs::msg::dds_::LaserScan_`).
    pub dds_type: String,
    /// The type hash (`RIHS01_…`).
    pub hash: String,
    /// The token's QoS chunk.
    pub qos: String,
}

impl Endpoint {
    /// Reads an endpoint's liveliness token: `@ros2_lv/<domain>/<zid>/<nid>/<eid>/<kind>/
    /// <enclave>/<namespace>/<node>/<name>/<type>/<hash>/<qos>` (`None` for a node's token or
    /// anything else).
    pub fn parse(token: &str) -> Option<Endpoint> {
        let c: Vec<&str> = token.split('/').collect();
        if c.len() != 13 || c[0] != GRAPH {
            return None;
        }
        let kind = EndpointKind::from_chunk(c[5])?;
        let namespace = unmangle(c[7]);
        let node = unmangle(c[8]);
        let node = if namespace == "/" {
            format!("/{node}")
        } else {
            format!("{}/{node}", namespace.trim_end_matches('/'))
        };
        let name = unmangle(c[9]);
        Some(Endpoint {
            kind,
            zid: c[2].to_string(),
            node,
            name: if name.starts_with('/') {
                name
            } else {
                format!("/{name}")
            },
            dds_type: c[10].to_string(),
            hash: c[11].to_string(),
            qos: c[12].to_string(),
        })
    }

    /// The ROS 2 type name of its DDS type: `pkg/msg/Type` of `pkg::msg::dds_::Type_` (the
    /// DDS name as it is when it has not that form).
    pub fn type_name(&self) -> String {
        ros_type_name(&self.dds_type)
    }

    /// Whether it offers best-effort delivery (reliability 2 in its QoS chunk).
    pub fn best_effort(&self) -> bool {
        self.qos.starts_with('2')
    }
}

/// `pkg/msg/Type` of the DDS name `pkg::msg::dds_::Type_` (and `pkg/srv/Type` of a service's);
/// another name as it is.
pub fn ros_type_name(dds: &str) -> String {
    let parts: Vec<&str> = dds.split("::").collect();
    match parts.as_slice() {
        [pkg, kind, "dds_", ty] if ty.ends_with('_') => {
            format!("{pkg}/{kind}/{}", &ty[..ty.len() - 1])
        }
        _ => dds.to_string(),
    }
}

/// What the graph holds under one name, for one kind of endpoint pair (a topic's
/// publishers and subscriptions, or a service's servers and clients).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Named {
    /// The ROS 2 types seen under the name, each once, sorted.
    pub types: Vec<String>,
    /// Its publishers (servers, for a service).
    pub offered: Vec<Endpoint>,
    /// Its subscriptions (clients, for a service).
    pub wanted: Vec<Endpoint>,
}

/// Every endpoint of a domain's graph.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Graph {
    /// The endpoints, in the order their tokens were read.
    pub endpoints: Vec<Endpoint>,
}

impl Graph {
    /// The graph of these tokens (those that are not an endpoint's are skipped).
    pub fn from_tokens<'a>(tokens: impl IntoIterator<Item = &'a str>) -> Graph {
        let mut endpoints: Vec<Endpoint> = tokens.into_iter().filter_map(Endpoint::parse).collect();
        endpoints.dedup();
        Graph { endpoints }
    }

    /// The topics, by name: their types, publishers and subscriptions.
    pub fn topics(&self) -> BTreeMap<String, Named> {
        self.named(EndpointKind::Publisher, EndpointKind::Subscription)
    }

    /// The services, by name: their types, servers and clients.
    pub fn services(&self) -> BTreeMap<String, Named> {
        self.named(EndpointKind::Service, EndpointKind::Client)
    }

    fn named(&self, offered: EndpointKind, wanted: EndpointKind) -> BTreeMap<String, Named> {
        let mut out: BTreeMap<String, Named> = BTreeMap::new();
        for e in &self.endpoints {
            if e.kind != offered && e.kind != wanted {
                continue;
            }
            let n = out.entry(e.name.clone()).or_default();
            let ty = e.type_name();
            if !n.types.contains(&ty) {
                n.types.push(ty);
                n.types.sort();
            }
            if e.kind == offered {
                n.offered.push(e.clone());
            } else {
                n.wanted.push(e.clone());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::{Node, Qos};
    use sim_codec::catalog;

    #[test]
    fn endpoints_read_back_what_the_tokens_say() {
        let node = Node {
            domain: 3,
            zid: "ab12".into(),
            id: 0,
            name: "simcore".into(),
        };
        let t = node.endpoint_token(
            7,
            EndpointKind::Publisher,
            "/model/rover/odometry",
            &catalog::ODOMETRY.dds_name(),
            catalog::ODOMETRY.hash,
            Qos::SensorData,
        );
        let e = Endpoint::parse(&t).expect("an endpoint");
        assert_eq!(e.kind, EndpointKind::Publisher);
        assert_eq!(e.node, "/simcore");
        assert_eq!(e.name, "/model/rover/odometry");
        assert_eq!(e.type_name(), "nav_msgs/msg/Odometry");
        assert_eq!(e.hash, catalog::ODOMETRY.hash);
        assert!(e.best_effort());
        assert_eq!(Endpoint::parse(&node.token()), None, "a node's own token");
        assert_eq!(Endpoint::parse("@ros2_lv/0/x"), None);
    }

    #[test]
    fn a_namespaced_node_and_a_service_client_are_read() {
        let t = "@ros2_lv/0/z/4/9/SC/%/%robot1/teleop/%step_simulation/simulation_interfaces::srv::dds_::StepSimulation_/RIHS01_00/::,10:,:,:,,";
        let e = Endpoint::parse(t).unwrap();
        assert_eq!(
            (e.kind, e.node.as_str()),
            (EndpointKind::Client, "/robot1/teleop")
        );
        assert_eq!(e.type_name(), "simulation_interfaces/srv/StepSimulation");
        let g = Graph::from_tokens([t]);
        let s = g.services();
        assert_eq!(s["/step_simulation"].wanted.len(), 1);
        assert!(s["/step_simulation"].offered.is_empty());
        assert!(g.topics().is_empty());
    }
}
