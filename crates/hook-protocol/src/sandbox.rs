//! A hook's `sandbox:`: what a confined hook may reach (files it reads, writes and executes,
//! TCP ports it connects to) and what happens where the kernel cannot confine it.
//!
//! Written either as a mode alone (`sandbox: required`, `sandbox: best-effort`, `sandbox: off`)
//! or as a map:
//!
//! ```yaml
//! sandbox:
//!   mode: required          # required (default) | best-effort | off
//!   read: all               # all (default) | [paths]
//!   write: [~/.cache/fmt]   # added to the project, temp and scratch directories
//!   write_defaults: standard # standard (project, temp, scratch) | project
//!   exec: any               # any (default) | [paths]
//!   network: none           # none (default) | any | [443, 8080]
//! ```
//!
//! Relative paths resolve against the hook's project directory; `~/` against `HOME`.

use std::fmt;

use schemars::JsonSchema;
use serde::{
    Deserialize, Deserializer, Serialize, Serializer,
    de::{self, MapAccess, SeqAccess, Visitor},
};

/// What happens where the sandbox cannot be applied in full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// The hook runs unconfined.
    Off,
    /// Confined as far as the kernel allows; what it cannot confine is reported as a warning.
    BestEffort,
    /// Fail closed: the hook does not run unless every restriction asked for is enforced.
    #[default]
    Required,
}

impl SandboxMode {
    /// `off`, `best-effort` or `required`.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Off => "off",
            SandboxMode::BestEffort => "best-effort",
            SandboxMode::Required => "required",
        }
    }
}

/// A set of paths: everything, or only the listed ones.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum PathSet {
    /// Every path (`all` / `any`).
    #[default]
    All,
    /// Only these paths and what lies beneath them.
    Only(Vec<String>),
}

/// Which connections a hook may open. Landlock filters TCP by port, not by address; a seccomp
/// filter refuses other sockets (UDP only when the port list holds 53, no Unix socket).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum NetworkPolicy {
    /// No TCP connect or bind, and no other socket (kernel netlink and stream socketpairs aside).
    #[default]
    None,
    /// TCP connect to these ports only (no bind); 53 in the list also allows UDP, to any port.
    Ports(Vec<u16>),
    /// Unrestricted.
    Any,
}

/// The writable places a sandboxed hook gets without declaring them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WriteDefaults {
    /// The project directory, the system temp directory and the hook's scratch directory.
    #[default]
    Standard,
    /// The project directory only (model-registered hooks).
    Project,
}

/// A hook's sandbox policy.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct SandboxPolicy {
    /// `required` (default), `best-effort` or `off`.
    #[serde(default)]
    pub mode: SandboxMode,
    /// Readable paths: `all` (default) or a list (the system's program and library directories,
    /// the project and the writable paths are added).
    #[serde(default)]
    pub read: PathSet,
    /// Writable paths added to the defaults.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write: Vec<String>,
    /// `standard` (project, temp and scratch directories; default) or `project`.
    #[serde(default)]
    pub write_defaults: WriteDefaults,
    /// Where programs may be executed from: `any` (default) or a list (the hook's own
    /// interpreter and the system library directories are added).
    #[serde(default)]
    pub exec: PathSet,
    /// `none` (default), `any`, or the TCP ports it may connect to.
    #[serde(default)]
    pub network: NetworkPolicy,
}

impl SandboxPolicy {
    /// The policy of a mode alone: read everything, write the defaults, exec anything, no network.
    pub fn with_mode(mode: SandboxMode) -> Self {
        SandboxPolicy { mode, ..SandboxPolicy::default() }
    }

    /// The policy hooks registered by the model always run under: required, write the project
    /// directory only, no network.
    pub fn model_registered() -> Self {
        SandboxPolicy { write_defaults: WriteDefaults::Project, ..SandboxPolicy::default() }
    }

    /// The policy of a hook in a project trusted only sandboxed: its own policy (or the default
    /// one) with the mode raised to `required`, so neither `off` nor `best-effort` lets it run
    /// unconfined.
    pub fn required(declared: Option<SandboxPolicy>) -> Self {
        SandboxPolicy { mode: SandboxMode::Required, ..declared.unwrap_or_default() }
    }

    /// Whether the hook is confined at all.
    pub fn is_on(&self) -> bool {
        self.mode != SandboxMode::Off
    }

    /// One line for listings: `required; read all; write project, temp, scratch; exec any; network none`.
    pub fn summary(&self) -> String {
        if !self.is_on() {
            return "off".into();
        }
        let list = |set: &PathSet, all: &str| match set {
            PathSet::All => all.to_owned(),
            PathSet::Only(paths) => paths.join(", "),
        };
        let mut write = match self.write_defaults {
            WriteDefaults::Standard => vec!["project", "temp", "scratch"],
            WriteDefaults::Project => vec!["project"],
        };
        write.extend(self.write.iter().map(String::as_str));
        let network = match &self.network {
            NetworkPolicy::None => "none".to_owned(),
            NetworkPolicy::Any => "any".to_owned(),
            NetworkPolicy::Ports(ports) => {
                let list = ports.iter().map(u16::to_string).collect::<Vec<_>>().join(", ");
                // Port 53 is also what lets UDP out (seccomp cannot see a datagram's address);
                // without it, names do not resolve, which a hook author must learn here.
                if ports.contains(&53) {
                    format!("tcp ports {list}, udp (53 listed)")
                } else {
                    format!("tcp ports {list}, no udp (no DNS: add 53)")
                }
            }
        };
        format!(
            "{}; read {}; write {}; exec {}; network {}",
            self.mode.as_str(),
            list(&self.read, "all"),
            write.join(", "),
            list(&self.exec, "any"),
            network
        )
    }
}

/// A sandbox written as a map (read field by field, so an error names the field).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "SandboxPolicyMap")]
struct PolicyWire {
    /// `required` (default), `best-effort` or `off`.
    #[serde(default)]
    mode: SandboxMode,
    /// Readable paths: `all` (default) or a list.
    #[serde(default)]
    read: PathSet,
    /// Writable paths added to the defaults.
    #[serde(default)]
    write: Vec<String>,
    /// `standard` (project, temp and scratch directories; default) or `project`.
    #[serde(default)]
    write_defaults: WriteDefaults,
    /// `any` (default) or the paths programs may be executed from.
    #[serde(default)]
    exec: PathSet,
    /// `none` (default), `any`, or the TCP ports the hook may connect to (53 in the list also allows UDP, for DNS).
    #[serde(default)]
    network: NetworkPolicy,
}

impl JsonSchema for SandboxPolicy {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SandboxPolicy".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mode = generator.subschema_for::<SandboxMode>();
        let map = generator.subschema_for::<PolicyWire>();
        schemars::json_schema!({
            "description": "What the hook may reach: a mode alone, or a map (see docs/sandbox.md).",
            "oneOf": [mode, { "type": "boolean" }, map]
        })
    }
}

impl<'de> Deserialize<'de> for SandboxPolicy {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PolicyVisitor;
        impl<'de> Visitor<'de> for PolicyVisitor {
            type Value = SandboxPolicy;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`required`, `best-effort`, `off`, or a map with mode, read, write, exec, network")
            }
            fn visit_str<E: de::Error>(self, mode: &str) -> Result<SandboxPolicy, E> {
                let mode = SandboxMode::deserialize(de::value::StrDeserializer::<E>::new(mode))?;
                Ok(SandboxPolicy::with_mode(mode))
            }
            fn visit_bool<E: de::Error>(self, on: bool) -> Result<SandboxPolicy, E> {
                Ok(SandboxPolicy::with_mode(if on { SandboxMode::Required } else { SandboxMode::Off }))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<SandboxPolicy, A::Error> {
                let wire = PolicyWire::deserialize(de::value::MapAccessDeserializer::new(map))?;
                for path in wire.write.iter().chain(paths(&wire.read)).chain(paths(&wire.exec)) {
                    if path.trim().is_empty() {
                        return Err(de::Error::custom("a sandbox path is empty; write a directory or file path"));
                    }
                }
                Ok(SandboxPolicy {
                    mode: wire.mode,
                    read: wire.read,
                    write: wire.write,
                    write_defaults: wire.write_defaults,
                    exec: wire.exec,
                    network: wire.network,
                })
            }
        }
        fn paths(set: &PathSet) -> impl Iterator<Item = &String> {
            match set {
                PathSet::All => [].iter(),
                PathSet::Only(paths) => paths.iter(),
            }
        }
        deserializer.deserialize_any(PolicyVisitor)
    }
}

impl Serialize for PathSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            PathSet::All => serializer.serialize_str("all"),
            PathSet::Only(paths) => paths.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for PathSet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SetVisitor;
        impl<'de> Visitor<'de> for SetVisitor {
            type Value = PathSet;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`all` (or `any`) or a list of paths")
            }
            fn visit_str<E: de::Error>(self, value: &str) -> Result<PathSet, E> {
                match value {
                    "all" | "any" => Ok(PathSet::All),
                    other => Err(E::custom(format!("`{other}` is not `all`; write a list of paths: [\"{other}\"]"))),
                }
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<PathSet, A::Error> {
                let mut paths = Vec::new();
                while let Some(path) = seq.next_element::<String>()? {
                    paths.push(path);
                }
                Ok(PathSet::Only(paths))
            }
        }
        deserializer.deserialize_any(SetVisitor)
    }
}

impl JsonSchema for PathSet {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SandboxPathSet".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "`all` (or `any`), or a list of paths (relative to the project; `~/` is HOME).",
            "oneOf": [
                { "type": "string", "enum": ["all", "any"] },
                { "type": "array", "items": { "type": "string", "minLength": 1 } }
            ]
        })
    }
}

impl Serialize for NetworkPolicy {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            NetworkPolicy::None => serializer.serialize_str("none"),
            NetworkPolicy::Any => serializer.serialize_str("any"),
            NetworkPolicy::Ports(ports) => ports.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for NetworkPolicy {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NetVisitor;
        impl<'de> Visitor<'de> for NetVisitor {
            type Value = NetworkPolicy;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`none`, `any`, or a list of TCP ports (1-65535)")
            }
            fn visit_str<E: de::Error>(self, value: &str) -> Result<NetworkPolicy, E> {
                match value {
                    "none" => Ok(NetworkPolicy::None),
                    "any" | "all" => Ok(NetworkPolicy::Any),
                    other => Err(E::custom(format!(
                        "network `{other}` is not `none`, `any` or a list of TCP ports; Landlock filters by port, \
                         not by host"
                    ))),
                }
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<NetworkPolicy, A::Error> {
                let mut ports = Vec::new();
                while let Some(port) = seq.next_element::<u64>()? {
                    match u16::try_from(port) {
                        Ok(port) if port > 0 => ports.push(port),
                        _ => return Err(de::Error::custom(format!("`{port}` is not a TCP port (1-65535)"))),
                    }
                }
                Ok(NetworkPolicy::Ports(ports))
            }
        }
        deserializer.deserialize_any(NetVisitor)
    }
}

impl JsonSchema for NetworkPolicy {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SandboxNetwork".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "`none`, `any`, or the TCP ports the hook may connect to (53 in the list also allows UDP, for DNS).",
            "oneOf": [
                { "type": "string", "enum": ["none", "any"] },
                { "type": "array", "items": { "type": "integer", "minimum": 1, "maximum": 65535 } }
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<SandboxPolicy, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn a_mode_alone_or_a_map() {
        assert_eq!(parse("\"best-effort\"").unwrap(), SandboxPolicy::with_mode(SandboxMode::BestEffort));
        assert_eq!(parse("false").unwrap().mode, SandboxMode::Off);
        let policy = parse(r#"{"read": ["src"], "write": ["~/.cache/x"], "network": [443, 8080]}"#).unwrap();
        assert_eq!(policy.mode, SandboxMode::Required);
        assert_eq!(policy.read, PathSet::Only(vec!["src".into()]));
        assert_eq!(policy.exec, PathSet::All);
        assert_eq!(policy.network, NetworkPolicy::Ports(vec![443, 8080]));
        assert_eq!(parse(r#"{"network": "any"}"#).unwrap().network, NetworkPolicy::Any);
        assert_eq!(parse("{}").unwrap(), SandboxPolicy::default());
        assert_eq!(
            policy.summary(),
            "required; read src; write project, temp, scratch, ~/.cache/x; exec any; network tcp ports 443, 8080, no udp \
             (no DNS: add 53)"
        );
        let dns = SandboxPolicy { network: NetworkPolicy::Ports(vec![53, 443]), ..SandboxPolicy::default() };
        assert!(dns.summary().ends_with("network tcp ports 53, 443, udp (53 listed)"), "{}", dns.summary());
    }

    #[test]
    fn mistakes_are_named() {
        assert!(parse("\"strict\"").unwrap_err().contains("unknown variant `strict`"));
        assert!(parse(r#"{"network": [70000]}"#).unwrap_err().contains("`70000` is not a TCP port"));
        assert!(parse(r#"{"network": "example.com"}"#).unwrap_err().contains("not by host"));
        assert!(parse(r#"{"read": "home"}"#).unwrap_err().contains("write a list of paths"));
        assert!(parse(r#"{"wirte": []}"#).unwrap_err().contains("unknown field `wirte`"));
        assert!(parse(r#"{"write": [""]}"#).unwrap_err().contains("empty"));
    }
}
