use super::{relative_links, split_frontmatter, value_of};

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
