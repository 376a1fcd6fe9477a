//! Skills: `src/skills/<name>/SKILL.md` plus its resources, checked (frontmatter `name` and
//! `description`, the name matches the folder, relative links point at shipped files) and
//! copied to `skills/<name>/` in the artifact, where every host reads them. Entry: [`read_skills`].
//!
//! The frontmatter reader understands the flat `key: value` lines skills use; a folder or file
//! starting with `_` or `.` opts out, as for routes. Files are sorted, so the output is stable.
//! Symlinks are not followed, as in discovery: `src/skills`, a skill folder or a file in one
//! that is a symlink is AB5343 (it could copy a file from outside the project into the plugin).

use std::path::Path;

use crate::diagnostics::{Code, Diagnostic, Location};
use crate::project::{is_symlink, symlink_not_followed};

/// Where the convention looks, relative to the project root.
pub const SKILLS_DIR: &str = "src/skills";
/// The longest skill name hosts accept.
const MAX_NAME: usize = 64;
/// The longest description hosts accept.
const MAX_DESCRIPTION: usize = 1024;

/// One skill and every file it ships.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmitSkill {
    pub name: String,
    /// Paths relative to the skill folder (`SKILL.md`, `scripts/run.sh`), `/`-separated, sorted.
    pub files: Vec<(String, Vec<u8>)>,
}

/// The skills of the project at `root`, and what is wrong with them.
#[derive(Debug, Default)]
pub struct SkillsReturn {
    pub skills: Vec<EmitSkill>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads every skill folder under `<root>/src/skills`, sorted by folder name.
pub fn read_skills(root: &Path) -> SkillsReturn {
    let mut result = SkillsReturn::default();
    // A symlinked `src` is discovery's error; nothing is read through it.
    if is_symlink(&root.join("src")) {
        return result;
    }
    if is_symlink(&root.join(SKILLS_DIR)) {
        result.diagnostics.push(symlink_not_followed(
            SKILLS_DIR,
            "so no skill under it is shipped",
        ));
        return result;
    }
    let Ok(entries) = std::fs::read_dir(root.join(SKILLS_DIR)) else {
        return result;
    };
    let mut folders = Vec::new();
    for entry in entries.filter_map(|entry| entry.ok()) {
        let name = entry.file_name().to_string_lossy().into_owned();
        match entry.file_type() {
            _ if opts_out(&name) => {}
            Ok(kind) if kind.is_dir() => folders.push(name),
            Ok(kind) if kind.is_symlink() => result.diagnostics.push(symlink_not_followed(
                &format!("{SKILLS_DIR}/{name}"),
                "so the skill it points at is not shipped",
            )),
            _ => {}
        }
    }
    folders.sort();
    for folder in folders {
        let dir = root.join(SKILLS_DIR).join(&folder);
        let mut files = Vec::new();
        let display_dir = format!("{SKILLS_DIR}/{folder}");
        let before = result.diagnostics.len();
        collect_files(&dir, "", &display_dir, &mut files, &mut result.diagnostics);
        files.sort();
        let display = format!("{SKILLS_DIR}/{folder}/SKILL.md");
        let Some((_, skill_md)) = files.iter().find(|(path, _)| path == "SKILL.md") else {
            continue;
        };
        let text = String::from_utf8_lossy(skill_md).into_owned();
        check_skill(&folder, &text, &files, &display, &mut result.diagnostics);
        if result.diagnostics.len() == before {
            result.skills.push(EmitSkill {
                name: folder,
                files,
            });
        }
    }
    result
}

fn opts_out(name: &str) -> bool {
    name.starts_with('_') || name.starts_with('.')
}

/// Every regular file under `dir`, relative to the skill folder; a symlink is not followed and
/// is reported (`skill_dir` is the folder as the user sees it).
fn collect_files(
    dir: &Path,
    prefix: &str,
    skill_dir: &str,
    files: &mut Vec<(String, Vec<u8>)>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(|entry| entry.ok()) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if opts_out(&name) {
            continue;
        }
        let relative = format!("{prefix}{name}");
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => {
                let prefix = format!("{relative}/");
                collect_files(&entry.path(), &prefix, skill_dir, files, diagnostics);
            }
            Ok(kind) if kind.is_file() => {
                if let Ok(bytes) = std::fs::read(entry.path()) {
                    files.push((relative, bytes));
                }
            }
            Ok(kind) if kind.is_symlink() => diagnostics.push(symlink_not_followed(
                &format!("{skill_dir}/{relative}"),
                "so the skill does not ship it",
            )),
            _ => {}
        }
    }
}

fn check_skill(
    folder: &str,
    text: &str,
    files: &[(String, Vec<u8>)],
    display: &str,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut report = |code: Code, message: String, recovery: &str| {
        diagnostics.push(Diagnostic::new(code, message, recovery).at(Location::file(display)));
    };
    let (frontmatter, body) = split_frontmatter(text);
    let field = |key: &str| {
        frontmatter
            .as_deref()
            .and_then(|lines| value_of(lines, key))
    };
    let name = field("name");
    match &name {
        Some(name) if is_skill_name(name) => {
            if name != folder {
                report(
                    Code::AB4004,
                    format!("the skill in `{folder}/` is named `{name}`"),
                    "Name the skill after its folder, or rename the folder.",
                );
            }
        }
        Some(name) => report(
            Code::AB4002,
            format!("skill name `{name}` is not 1–64 lowercase letters, digits and single hyphens"),
            "Write a name like `reading-notes` in the frontmatter.",
        ),
        None => report(
            Code::AB4002,
            "SKILL.md has no frontmatter `name`".to_owned(),
            "Start SKILL.md with `---`, a `name: <folder name>` line, a `description:` line and `---`.",
        ),
    }
    match field("description") {
        Some(description) if description.chars().count() <= MAX_DESCRIPTION => {}
        Some(_) => report(
            Code::AB4003,
            format!("the skill description is longer than {MAX_DESCRIPTION} characters"),
            "Shorten the description; hosts show it to decide when to use the skill.",
        ),
        None => report(
            Code::AB4003,
            "SKILL.md has no frontmatter `description`".to_owned(),
            "Add a `description:` line saying when the agent should use the skill.",
        ),
    }
    for link in relative_links(body) {
        if !files.iter().any(|(path, _)| *path == link) {
            report(
                Code::AB4005,
                format!("SKILL.md links `{link}`, which the skill folder does not contain"),
                "Add the file to the skill folder or fix the link.",
            );
        }
    }
}

/// The frontmatter lines (without the `---` fences) and the body after them.
fn split_frontmatter(text: &str) -> (Option<String>, &str) {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (None, text);
    };
    match rest.find("\n---") {
        Some(end) => {
            let body = rest[end + 4..].trim_start_matches(['\r', '\n']);
            (Some(rest[..end].to_owned()), body)
        }
        None => (None, text),
    }
}

/// The value of a flat `key: value` line, unquoted; blank values count as absent.
fn value_of(lines: &str, key: &str) -> Option<String> {
    lines.lines().find_map(|line| {
        let (found, value) = line.split_once(':')?;
        if found.trim() != key {
            return None;
        }
        let value = value.trim();
        let unquoted = value
            .strip_prefix('"')
            .and_then(|value| value.strip_suffix('"'))
            .or_else(|| {
                value
                    .strip_prefix('\'')
                    .and_then(|value| value.strip_suffix('\''))
            })
            .unwrap_or(value);
        (!unquoted.trim().is_empty()).then(|| unquoted.trim().to_owned())
    })
}

fn is_skill_name(name: &str) -> bool {
    name.len() <= MAX_NAME
        && !name.is_empty()
        && name.split('-').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

/// Targets of Markdown links `](target)` that are relative file paths (no scheme, anchor or
/// absolute path), normalised without a leading `./` and without a `#fragment`.
fn relative_links(body: &str) -> Vec<String> {
    let mut links = Vec::new();
    let mut rest = body;
    while let Some(start) = rest.find("](") {
        let after = &rest[start + 2..];
        let Some(end) = after.find(')') else { break };
        let target = after[..end].split('#').next().unwrap_or_default().trim();
        let target = target.split_whitespace().next().unwrap_or_default();
        let external = target.contains("://") || target.starts_with("mailto:");
        if !target.is_empty() && !external && !target.starts_with('/') {
            links.push(target.trim_start_matches("./").to_owned());
        }
        rest = &after[end..];
    }
    links
}

#[cfg(test)]
#[path = "skills_tests.rs"]
mod tests;
