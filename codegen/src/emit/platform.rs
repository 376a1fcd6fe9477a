//! `abgen build --platform LIST`: the `abgen-host` binaries an artifact ships for the machines
//! of its users, each at `bin/<platform>/abgen-host`, behind a POSIX launcher at
//! `bin/abgen-host` that runs the one of the machine it is on. Entries:
//! [`locate_platform_binaries`] (each platform's binary, from its npm platform package
//! `@abgen/<platform>`) and [`platform_launcher`].
//!
//! Without `--platform` an artifact holds the running platform's binary at `bin/abgen-host`
//! and no launcher, as before platforms existed.

use std::path::{Path, PathBuf};

use super::build::locate_host_binary;
use super::install::build_platform;
use crate::diagnostics::{Code, Diagnostic};

/// Every platform key abgen knows, named as its npm platform package `@abgen/<key>` is, sorted.
pub const PLATFORM_KEYS: &[&str] = &[
    "darwin-arm64",
    "darwin-x64",
    "linux-arm64-gnu",
    "linux-arm64-musl",
    "linux-x64-gnu",
    "linux-x64-musl",
    "win32-arm64-msvc",
    "win32-x64-msvc",
];

/// The platforms whose artifacts are built and run in abgen's own tests; every other one is
/// marked untested where an artifact names it.
pub const TESTED_PLATFORMS: &[&str] = &["linux-x64-gnu"];

/// The npm scope of the platform packages.
const PLATFORM_PACKAGE_SCOPE: &str = "@abgen";

/// The prefix of the environment variable naming one platform's `abgen-host`:
/// `ABGEN_HOST_DARWIN_ARM64` for `darwin-arm64` (as `ABGEN_HOST` names the running one's).
pub const PLATFORM_HOST_ENV_PREFIX: &str = "ABGEN_HOST_";

/// One platform's `abgen-host`, found on this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlatformBinary {
    /// The platform key (`linux-x64-gnu`).
    pub key: String,
    /// The binary to copy to `bin/<key>/abgen-host`.
    pub path: PathBuf,
}

/// Where a platform's binary goes in the artifact.
pub fn platform_binary_path(key: &str) -> String {
    format!("bin/{key}/abgen-host")
}

/// The environment variable naming `key`'s `abgen-host`.
pub fn platform_host_env(key: &str) -> String {
    format!(
        "{PLATFORM_HOST_ENV_PREFIX}{}",
        key.to_ascii_uppercase().replace('-', "_")
    )
}

/// Whether an artifact built for `key` has been run by abgen's own tests.
pub fn is_tested_platform(key: &str) -> bool {
    TESTED_PLATFORMS.contains(&key)
}

/// The `abgen-host` of each of `keys` (sorted and deduplicated in the result), or one
/// diagnostic per key that cannot be shipped: unknown (AB5367), Windows (AB5368) or not found
/// (AB5370). `explicit` is the caller's binary for the running platform (`BuildOptions`'s
/// `host_binary`). For each key, in order: `ABGEN_HOST_<KEY>`; for the running platform,
/// `explicit` and then the binary a plain build ships ([`locate_host_binary`]); then the
/// platform package `@abgen/<key>` in a `node_modules` folder above the running abgen (beside
/// the platform package abgen runs from, or nested in the `abgen` package) or above the project.
pub fn locate_platform_binaries(
    keys: &[String],
    project_root: &Path,
    plugin: &str,
    explicit: Option<&Path>,
) -> Result<Vec<PlatformBinary>, Vec<Diagnostic>> {
    let mut keys: Vec<&str> = keys.iter().map(|key| key.trim()).collect();
    keys.sort_unstable();
    keys.dedup();
    if keys.iter().all(|key| key.is_empty()) {
        return Err(vec![unknown_platform("")]);
    }
    let mut found = Vec::new();
    let mut diagnostics = Vec::new();
    for key in keys.into_iter().filter(|key| !key.is_empty()) {
        if !PLATFORM_KEYS.contains(&key) {
            diagnostics.push(unknown_platform(key));
        } else if key.starts_with("win32-") {
            diagnostics.push(windows_platform(key));
        } else if key == plugin {
            diagnostics.push(platform_is_plugin_name(key));
        } else {
            match locate_platform_binary(key, project_root, explicit) {
                Ok(path) => found.push(PlatformBinary {
                    key: key.to_owned(),
                    path,
                }),
                Err(why) => diagnostics.push(platform_missing(key, &why)),
            }
        }
    }
    if diagnostics.is_empty() {
        Ok(found)
    } else {
        Err(diagnostics)
    }
}

/// `key`'s binary, or why there is none.
fn locate_platform_binary(
    key: &str,
    project_root: &Path,
    explicit: Option<&Path>,
) -> Result<PathBuf, String> {
    let env = platform_host_env(key);
    if let Some(path) = std::env::var_os(&env).filter(|path| !path.is_empty()) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "{env} names {}, which is not a file",
                path.display()
            ))
        };
    }
    if key == build_platform() {
        if let Some(path) = explicit {
            return Ok(path.to_owned());
        }
        if let Ok(path) = locate_host_binary() {
            return Ok(path);
        }
    }
    let package = format!("{PLATFORM_PACKAGE_SCOPE}/{key}");
    let executable = std::env::current_exe().unwrap_or_default();
    let absolute_root = std::path::absolute(project_root).unwrap_or_else(|_| project_root.into());
    let searched = executable
        .ancestors()
        .skip(1)
        .chain(absolute_root.ancestors());
    for dir in searched {
        for package_dir in [
            dir.join("node_modules").join(&package),
            dir.join("node_modules/abgen/node_modules").join(&package),
        ] {
            let binary = package_dir.join("bin/abgen-host");
            if !binary.is_file() {
                continue;
            }
            // A platform package of another abgen release may read another manifest.
            let version = package_version(&package_dir.join("package.json"));
            return match version {
                Some(version) if version == env!("CARGO_PKG_VERSION") => Ok(binary),
                other => Err(format!(
                    "{} is {} where abgen is {}",
                    package_dir.display(),
                    other.map_or_else(
                        || "a package without a version".to_owned(),
                        |version| format!("version {version}"),
                    ),
                    env!("CARGO_PKG_VERSION")
                )),
            };
        }
    }
    Err(format!(
        "no {package} in a node_modules folder above abgen ({}) or the project, and {env} is unset",
        executable.display()
    ))
}

/// The `version` of a package.json, if it has one.
fn package_version(manifest: &Path) -> Option<String> {
    let text = std::fs::read_to_string(manifest).ok()?;
    let manifest: serde_json::Value = serde_json::from_str(&text).ok()?;
    manifest.get("version")?.as_str().map(str::to_owned)
}

/// The platform keys `--platform` accepts, for a diagnostic's help.
fn known_keys() -> String {
    PLATFORM_KEYS
        .iter()
        .filter(|key| !key.starts_with("win32-"))
        .copied()
        .collect::<Vec<_>>()
        .join(", ")
}

fn unknown_platform(key: &str) -> Diagnostic {
    Diagnostic::new(
        Code::AB5367,
        format!("`--platform` names `{key}`, which is not a platform abgen builds for"),
        format!(
            "pass a comma-separated list of platform keys ({}), e.g. `--platform linux-x64-gnu,darwin-arm64`; nothing was written",
            known_keys()
        ),
    )
}

fn platform_is_plugin_name(key: &str) -> Diagnostic {
    Diagnostic::new(
        Code::AB5367,
        format!(
            "the plugin is named `{key}`, so its executable `bin/{key}` takes the place of the folder `bin/{key}/` of the platform `{key}`"
        ),
        "rename the plugin (`plugin.name`) or leave that platform out of `--platform`; nothing was written",
    )
}

fn windows_platform(key: &str) -> Diagnostic {
    Diagnostic::new(
        Code::AB5368,
        format!(
            "`--platform {key}`: an artifact cannot run on Windows yet, as `bin/abgen-host` is a POSIX sh launcher and Windows hosts have no sh to run it"
        ),
        format!(
            "leave `{key}` out of `--platform` (it takes {}); nothing was written",
            known_keys()
        ),
    )
}

fn platform_missing(key: &str, why: &str) -> Diagnostic {
    Diagnostic::new(
        Code::AB5370,
        format!("no abgen-host for the platform `{key}`: {why}"),
        format!(
            "install its platform package beside abgen: `npm install --save-dev --force {PLATFORM_PACKAGE_SCOPE}/{key}@{}` (`--force`: npm installs another platform's package only when told to), or set {} to the path of its abgen-host; nothing was written",
            env!("CARGO_PKG_VERSION"),
            platform_host_env(key)
        ),
    )
}

/// The POSIX launcher at `bin/abgen-host` of an artifact holding `keys` (sorted): it runs
/// `bin/<platform>/abgen-host` of the machine it is on, or says on stderr which platform is
/// missing and how to add it, and exits 1 (not 2, which Claude Code reads as a blocking hook).
///
/// It runs before every hook, inside the host's deadline, so on Linux it starts no process
/// before its `exec`: the platform comes from `/proc/sys/kernel/{ostype,arch}` with `read`, musl
/// from its loader `/lib/ld-musl-<arch>.so.1` (one `stat`; the glibc build still runs where
/// glibc's loader is there too), and the launcher's folder from `${0%/*}` (hosts run it by an
/// absolute path, or `./bin/abgen-host` against the plugin root). Only where `/proc` is absent
/// (macOS) does it run `uname`, and only a symlinked launcher runs `readlink`.
pub fn platform_launcher(keys: &[String]) -> String {
    let held = keys.join(", ");
    let list = keys.join(",");
    format!(
        r#"#!/bin/sh
# abgen-host of the platforms this plugin was built for ({held}): runs
# bin/<platform>/abgen-host of this machine. Built by `abgen build --platform {list}`.
if [ -r /proc/sys/kernel/ostype ] && [ -r /proc/sys/kernel/arch ]; then
  read -r os </proc/sys/kernel/ostype
  read -r machine </proc/sys/kernel/arch
else
  os=$(uname -s)
  machine=$(uname -m)
fi
case $os in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
esac
case $machine in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) arch=$machine ;;
esac
platform=$os-$arch
libc=
if [ "$os" = linux ]; then
  libc=gnu
  [ -e "/lib/ld-musl-$machine.so.1" ] && libc=musl
  platform=$platform-$libc
fi
self=$0
while [ -L "$self" ]; do
  link=$(readlink -- "$self") || exit 1
  case $link in
    /*) self=$link ;;
    *) case $self in */*) self=${{self%/*}}/$link ;; *) self=$link ;; esac ;;
  esac
done
case $self in
  */*) here=${{self%/*}} ;;
  *) here=. ;;
esac
# musl's loader can sit beside glibc's (Debian's musl package): then a glibc build runs too.
if [ "$libc" = musl ] && [ ! -x "$here/$platform/abgen-host" ]; then
  for loader in /lib*/ld-linux-*.so.*; do
    [ -e "$loader" ] && platform=$os-$arch-gnu
  done
fi
if [ -x "$here/$platform/abgen-host" ]; then
  exec "$here/$platform/abgen-host" "$@"
fi
echo "abgen-host: this plugin has no runtime for this machine's platform, $platform (bin/ holds {held}); rebuild it with \`abgen build --platform {list},$platform\`" >&2
exit 1
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(list: &[&str]) -> Vec<String> {
        list.iter().map(|key| (*key).to_owned()).collect()
    }

    #[test]
    fn unknown_windows_and_plugin_named_keys_are_each_a_diagnostic() {
        let root = tempfile::tempdir().unwrap();
        let diagnostics = locate_platform_binaries(
            &keys(&["linux-x64-gnux", "win32-x64-msvc", "darwin-x64"]),
            root.path(),
            "darwin-x64",
            None,
        )
        .unwrap_err();
        let codes: Vec<&str> = diagnostics.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, ["AB5367", "AB5367", "AB5368"], "{diagnostics:#?}");
        assert!(diagnostics[1].message.contains("`linux-x64-gnux`"));
        assert!(diagnostics[0].message.contains("bin/darwin-x64"));
        let empty = locate_platform_binaries(&keys(&["", " "]), root.path(), "p", None);
        assert_eq!(empty.unwrap_err()[0].code, Code::AB5367);
    }

    #[test]
    fn a_platform_package_is_found_above_the_project_and_its_version_is_checked() {
        let root = tempfile::tempdir().unwrap();
        let package = root.path().join("node_modules/@abgen/linux-arm64-musl");
        std::fs::create_dir_all(package.join("bin")).unwrap();
        std::fs::write(package.join("bin/abgen-host"), "#!/bin/sh\n").unwrap();
        let project = root.path().join("plugin");
        std::fs::create_dir_all(&project).unwrap();
        let locate =
            || locate_platform_binaries(&keys(&["linux-arm64-musl"]), &project, "plugin", None);
        let missing_version = locate().unwrap_err();
        assert_eq!(missing_version[0].code, Code::AB5370);
        assert!(
            missing_version[0]
                .message
                .contains("a package without a version"),
            "{missing_version:#?}"
        );
        std::fs::write(
            package.join("package.json"),
            format!(r#"{{"version":"{}"}}"#, env!("CARGO_PKG_VERSION")),
        )
        .unwrap();
        assert_eq!(
            locate().unwrap(),
            [PlatformBinary {
                key: "linux-arm64-musl".to_owned(),
                path: package.join("bin/abgen-host"),
            }]
        );
    }

    #[test]
    fn a_platform_without_a_package_names_the_install_that_adds_it() {
        let root = tempfile::tempdir().unwrap();
        let diagnostics =
            locate_platform_binaries(&keys(&["darwin-arm64"]), root.path(), "plugin", None)
                .unwrap_err();
        assert_eq!(diagnostics[0].code, Code::AB5370);
        let help = &diagnostics[0].recovery;
        assert!(
            help.contains("npm install --save-dev --force @abgen/darwin-arm64@")
                && help.contains("ABGEN_HOST_DARWIN_ARM64"),
            "{help}"
        );
    }

    #[test]
    fn the_launcher_is_posix_sh_and_forks_nothing_on_linux_before_its_exec() {
        let launcher = platform_launcher(&keys(&["darwin-arm64", "linux-x64-gnu"]));
        assert!(launcher.starts_with("#!/bin/sh\n"));
        let status = std::process::Command::new("sh")
            .args(["-n", "-c", &launcher])
            .status()
            .unwrap();
        assert!(status.success(), "sh -n rejects the launcher:\n{launcher}");
        // The only subprocesses are in the no-/proc branch and the symlink loop.
        let forks: Vec<&str> = launcher
            .lines()
            .filter(|line| line.contains("$("))
            .collect();
        assert_eq!(
            forks,
            [
                "  os=$(uname -s)",
                "  machine=$(uname -m)",
                "  link=$(readlink -- \"$self\") || exit 1"
            ]
        );
        assert!(launcher.contains("--platform darwin-arm64,linux-x64-gnu,$platform"));
    }
}
