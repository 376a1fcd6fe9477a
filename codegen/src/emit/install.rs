//! `INSTALL.md`: how to install the artifact on each selected host (the matrix's `install` steps)
//! and which hooks each host registers, and how to open each MCP App in a browser
//! (`bin/abgen-host web`), rendered from `templates/INSTALL.md.j2` with minijinja.
//! Entry: [`render_install`].
//!
//! Invariant: the text depends only on the plugin identity, the sorted hosts, the resolved rows
//! and the platforms `bin/` holds (the `--platform` list, else the one abgen was built for, that
//! of the `abgen-host` it ships), so it is as byte-stable as every other file of the artifact.

use abgen_runtime::manifest::RouteKind;
use minijinja::{Environment, context};
use serde::Serialize;

use super::error::EmitError;
use super::input::EmitInput;
use super::platform::{PlatformBinary, is_tested_platform, platform_binary_path};
use crate::matrix::{HookRow, HostMatrix};

/// Where the document sits in every artifact.
pub const INSTALL_PATH: &str = "INSTALL.md";
const TEMPLATE: &str = include_str!("../../../templates/INSTALL.md.j2");

#[derive(Serialize)]
struct HostSection<'a> {
    display_name: &'a str,
    steps: Vec<String>,
    /// How the plugin's own executable is run on this host.
    command: String,
    hooks: Vec<&'a HookRow>,
    left_out: Vec<&'a HookRow>,
}

/// One platform `bin/` holds, as INSTALL.md lists it.
#[derive(Serialize)]
struct ShippedPlatform {
    key: String,
    path: String,
    tested: bool,
}

/// The platform this abgen was built for, named as its npm platform package is
/// (`linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`): the platform of the `abgen-host` an
/// installed abgen ships beside itself.
pub fn build_platform() -> String {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    let abi = if cfg!(target_os = "linux") {
        if cfg!(target_env = "musl") {
            "-musl"
        } else {
            "-gnu"
        }
    } else if cfg!(target_os = "windows") {
        "-msvc"
    } else {
        ""
    };
    format!("{os}-{arch}{abi}")
}

/// The INSTALL.md of `input` built for `hosts` (sorted by name) with the resolved `rows`, its
/// `bin/` holding `platforms` (none: the one runtime of the platform abgen was built for).
pub fn render_install(
    input: &EmitInput,
    hosts: &[&HostMatrix],
    rows: &[HookRow],
    platforms: &[PlatformBinary],
) -> Result<String, EmitError> {
    let plugin = &input.plugin;
    let sections: Vec<HostSection<'_>> = hosts
        .iter()
        .map(|host| {
            let of_host = || rows.iter().filter(|row| row.host == host.host);
            HostSection {
                display_name: &host.display_name,
                steps: host
                    .install
                    .steps
                    .iter()
                    .map(|step| step.replace("{name}", &plugin.name))
                    .collect(),
                command: match &host.plugin.executables {
                    Some(executables) => format!(
                        "{} puts `{}/` on PATH: run `{} --help` in its sessions.",
                        host.display_name, executables.dir, plugin.name
                    ),
                    None => format!(
                        "{} puts no plugin executable on PATH: run `<this folder>/bin/{} --help`.",
                        host.display_name, plugin.name
                    ),
                },
                hooks: of_host().filter(|row| row.deadline_ms.is_some()).collect(),
                left_out: of_host().filter(|row| row.deadline_ms.is_none()).collect(),
            }
        })
        .collect();
    let names: Vec<&str> = hosts
        .iter()
        .map(|host| host.display_name.as_str())
        .collect();
    // `<server>/<app>`, the name `abgen-host web` opens an App by, sorted.
    let mut apps: Vec<String> = input
        .routes
        .iter()
        .filter(|route| route.kind == RouteKind::App)
        .filter_map(|route| {
            Some(format!(
                "{}/{}",
                route.server.as_deref()?,
                route.wire_name.as_deref()?
            ))
        })
        .collect();
    apps.sort();
    let mut platforms: Vec<ShippedPlatform> = platforms
        .iter()
        .map(|platform| ShippedPlatform {
            key: platform.key.clone(),
            path: platform_binary_path(&platform.key),
            tested: is_tested_platform(&platform.key),
        })
        .collect();
    platforms.sort_by(|a, b| a.key.cmp(&b.key));
    let mut environment = Environment::new();
    environment.set_keep_trailing_newline(true);
    let mut render = || -> Result<String, minijinja::Error> {
        environment.add_template("INSTALL.md", TEMPLATE)?;
        environment.get_template("INSTALL.md")?.render(context! {
            name => plugin.name,
            version => plugin.version,
            description => plugin
                .description
                .clone()
                .unwrap_or_else(|| format!("The {} plugin.", plugin.name)),
            host_names => names.join(", "),
            platform => build_platform(),
            platforms => platforms,
            hosts => sections,
            apps => apps,
        })
    };
    render().map_err(|error| EmitError::InstallTemplate(error.to_string()))
}
