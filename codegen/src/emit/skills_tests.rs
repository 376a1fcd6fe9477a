use super::{read_skills, relative_links, split_frontmatter, value_of};
use crate::diagnostics::Code;

#[test]
fn reads_flat_frontmatter_values_quoted_or_not() {
    let (front, body) =
        split_frontmatter("---\nname: notes\ndescription: \"Use it: always\"\n---\n# Body\n");
    let front = front.unwrap();
    assert_eq!(value_of(&front, "name").as_deref(), Some("notes"));
    assert_eq!(
        value_of(&front, "description").as_deref(),
        Some("Use it: always")
    );
    assert_eq!(value_of(&front, "license"), None);
    assert_eq!(body, "# Body\n");
    assert_eq!(split_frontmatter("# No frontmatter").0, None);
}

#[test]
fn only_relative_file_links_are_checked() {
    let body =
        "See [a](./guide.md), [b](refs/x.md#part), [c](https://example.com), [d](#top), [e](/abs).";
    assert_eq!(relative_links(body), ["guide.md", "refs/x.md"]);
}

#[cfg(unix)]
#[test]
fn symlinks_are_not_followed_and_are_errors() {
    use std::fs;
    use std::os::unix::fs::symlink;
    let skill = "---\nname: notes\ndescription: Take notes.\n---\n# Notes\n";
    let outside = tempfile::tempdir().unwrap();
    fs::create_dir_all(outside.path().join("notes")).unwrap();
    fs::write(outside.path().join("notes/SKILL.md"), skill).unwrap();
    fs::write(outside.path().join("secret.txt"), "outside the project").unwrap();
    let reported = |root: &std::path::Path| {
        let skills = read_skills(root);
        let mut found: Vec<String> = skills
            .diagnostics
            .iter()
            .map(|d| {
                assert_eq!(d.code, Code::AB5343);
                assert!(d.is_error());
                d.location.as_ref().unwrap().file.clone()
            })
            .collect();
        found.sort();
        (found, skills.skills)
    };

    // `src/skills` itself a link: nothing is read through it.
    let project = tempfile::tempdir().unwrap();
    fs::create_dir(project.path().join("src")).unwrap();
    symlink(outside.path(), project.path().join("src/skills")).unwrap();
    let (found, skills) = reported(project.path());
    assert_eq!(found, ["src/skills"]);
    assert!(skills.is_empty());

    // A skill folder that is a link, and a linked file inside a real skill.
    let project = tempfile::tempdir().unwrap();
    let notes = project.path().join("src/skills/notes");
    fs::create_dir_all(&notes).unwrap();
    fs::write(notes.join("SKILL.md"), skill).unwrap();
    symlink(outside.path().join("secret.txt"), notes.join("secret.txt")).unwrap();
    symlink(
        outside.path().join("notes"),
        project.path().join("src/skills/linked"),
    )
    .unwrap();
    let (found, skills) = reported(project.path());
    assert_eq!(found, ["src/skills/linked", "src/skills/notes/secret.txt"]);
    assert!(skills.is_empty(), "a skill with an error is not shipped");

    // With `src` a link, discovery reports it and skills read nothing through it.
    let project = tempfile::tempdir().unwrap();
    fs::create_dir_all(outside.path().join("src-real/skills/notes")).unwrap();
    fs::write(outside.path().join("src-real/skills/notes/SKILL.md"), skill).unwrap();
    symlink(outside.path().join("src-real"), project.path().join("src")).unwrap();
    let (found, skills) = reported(project.path());
    assert!(found.is_empty());
    assert!(skills.is_empty());
}
