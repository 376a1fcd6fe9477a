//! The children of a result or boundary node: a list of nodes that snapshots share.
//!
//! A render emits a full document with every shell and replace event, and most of each snapshot is
//! the previous one unchanged. `Children` is a persistent list: its parts are nodes or whole lists
//! shared with earlier snapshots behind an `Arc`, so cloning a document or reusing a converted
//! region costs O(1) instead of a deep copy. Invariant: it reads, compares and serializes exactly
//! as the flat `Vec<Node>` it stands for; the sharing is never visible in its JSON.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::node::Node;

/// An immutable, cheaply cloned list of nodes.
#[derive(Clone, Default)]
pub struct Children {
    parts: Arc<[Part]>,
    len: usize,
    /// Whether some node in the list, at any depth, is an error node.
    holds_error: bool,
    /// Whether some node in the list, at any depth, is a boundary.
    holds_boundary: bool,
}

#[derive(Clone)]
enum Part {
    Node(Node),
    Shared(Children),
}

impl Children {
    /// How many nodes the list holds (shared lists counted by their nodes).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether some node in the list or below it is an error node (known without a walk).
    pub fn holds_error(&self) -> bool {
        self.holds_error
    }

    /// Whether some node in the list or below it is a boundary (known without a walk).
    pub fn holds_boundary(&self) -> bool {
        self.holds_boundary
    }

    /// The nodes in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            stack: vec![self.parts.iter()],
        }
    }

    /// The first node (no walk state: a shared part is never empty, so this descends the first
    /// parts).
    pub fn first(&self) -> Option<&Node> {
        self.parts.iter().find_map(|part| match part {
            Part::Node(node) => Some(node),
            Part::Shared(shared) => shared.first(),
        })
    }

    /// The nodes as a flat vector (a deep copy).
    pub fn to_vec(&self) -> Vec<Node> {
        self.iter().cloned().collect()
    }

    /// Appends this list to `builder` with every boundary replaced by its own children, flattened
    /// the same way, and every nested result flattened inside; shared parts that hold neither are
    /// shared again rather than copied.
    pub(crate) fn flatten_into(&self, builder: &mut ChildrenBuilder) {
        for part in self.parts.iter() {
            match part {
                Part::Node(Node::Boundary { children, .. })
                    if children.holds_boundary || children.holds_result() =>
                {
                    children.flatten_into(builder);
                }
                // A boundary's children that hold neither are shared whole, not copied.
                Part::Node(Node::Boundary { children, .. }) => builder.append(children),
                Part::Node(Node::Result { children }) => {
                    let mut inner = ChildrenBuilder::default();
                    children.flatten_into(&mut inner);
                    builder.push(Node::Result {
                        children: inner.finish(),
                    });
                }
                Part::Node(node) => builder.push(node.clone()),
                Part::Shared(shared) if shared.holds_boundary || shared.holds_result() => {
                    shared.flatten_into(builder);
                }
                Part::Shared(shared) => builder.append(shared),
            }
        }
    }

    /// Calls `visit` with each node of the list, in order, skipping the shared parts that hold
    /// no boundary (a walk that looks for boundaries need not read what cannot hold one) and
    /// those `enter` declines (a walk that has read one before need not read it again).
    pub(crate) fn for_each_near_boundaries<'s>(&'s self, walk: &mut impl NearBoundaries<'s>) {
        for part in self.parts.iter() {
            match part {
                Part::Node(node) => walk.visit(node),
                Part::Shared(shared) if shared.holds_boundary && walk.enter(shared) => {
                    shared.for_each_near_boundaries(walk);
                }
                Part::Shared(_) => {}
            }
        }
    }

    /// The identity of this list's storage: two lists with one identity are one list, shared
    /// (the nodes are immutable). Only meaningful while the list is alive.
    pub(crate) fn identity(&self) -> usize {
        Arc::as_ptr(&self.parts).cast::<u8>() as usize
    }

    /// Whether some node of the list itself (not below) is a result node. Read part by part,
    /// without the iterator's stack: flattening asks it of every boundary.
    fn holds_result(&self) -> bool {
        self.parts.iter().any(|part| match part {
            Part::Node(node) => matches!(node, Node::Result { .. }),
            Part::Shared(shared) => shared.holds_result(),
        })
    }
}

/// A walk over the nodes near boundaries ([`Children::for_each_near_boundaries`]).
pub(crate) trait NearBoundaries<'s> {
    /// Whether to read the shared list `children`.
    fn enter(&mut self, children: &'s Children) -> bool;
    fn visit(&mut self, node: &'s Node);
}

/// Builds a [`Children`] from nodes and shared lists.
#[derive(Default)]
pub(crate) struct ChildrenBuilder {
    parts: Vec<Part>,
    len: usize,
    holds_error: bool,
    holds_boundary: bool,
}

impl ChildrenBuilder {
    pub(crate) fn push(&mut self, node: Node) {
        self.holds_error |= node.holds_error();
        self.holds_boundary |= match &node {
            Node::Boundary { .. } => true,
            Node::Result { children } => children.holds_boundary,
            _ => false,
        };
        self.parts.push(Part::Node(node));
        self.len += 1;
    }

    /// Appends `children` by sharing it, not copying its nodes.
    pub(crate) fn append(&mut self, children: &Children) {
        match &*children.parts {
            [] => {}
            // A list that only shares another is that other list: no extra level to walk.
            [shared @ Part::Shared(_)] => self.parts.push(shared.clone()),
            _ => self.parts.push(Part::Shared(children.clone())),
        }
        self.len += children.len;
        self.holds_error |= children.holds_error;
        self.holds_boundary |= children.holds_boundary;
    }

    pub(crate) fn finish(self) -> Children {
        Children {
            parts: self.parts.into(),
            len: self.len,
            holds_error: self.holds_error,
            holds_boundary: self.holds_boundary,
        }
    }
}

/// The parts of the lists being built, one above the other: a list is built on top of the
/// stack, finished into one allocation of exactly its parts, and taken off, so building a list
/// costs no buffer of its own. Lists are opened and finished (or discarded) last in, first out,
/// and parts go only into the list on top.
#[derive(Default)]
pub(crate) struct PartStack {
    parts: Vec<Part>,
}

impl fmt::Debug for PartStack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PartStack")
            .field("parts", &self.parts.len())
            .finish()
    }
}

/// A list being built on a [`PartStack`]: where its parts start, and what they hold.
pub(crate) struct StackedList {
    start: usize,
    /// How many parts it has on the stack.
    parts: usize,
    len: usize,
    holds_error: bool,
    holds_boundary: bool,
}

impl PartStack {
    /// Opens a list on top of the stack.
    pub(crate) fn open(&self) -> StackedList {
        StackedList {
            start: self.parts.len(),
            parts: 0,
            len: 0,
            holds_error: false,
            holds_boundary: false,
        }
    }

    /// Like [`ChildrenBuilder::push`], into `list`, the list on top.
    // Inlined, as `finish`: small, and on the path of every node a snapshot builds (a call
    // across modules is otherwise the compiler's choice, which shifts from build to build).
    #[inline]
    pub(crate) fn push(&mut self, list: &mut StackedList, node: Node) {
        self.check_top(list);
        list.holds_error |= node.holds_error();
        list.holds_boundary |= match &node {
            Node::Boundary { .. } => true,
            Node::Result { children } => children.holds_boundary,
            _ => false,
        };
        self.parts.push(Part::Node(node));
        list.parts += 1;
        list.len += 1;
    }

    /// Like [`ChildrenBuilder::append`], into `list`, the list on top.
    pub(crate) fn append(&mut self, list: &mut StackedList, children: &Children) {
        self.check_top(list);
        match &*children.parts {
            [] => return,
            [shared @ Part::Shared(_)] => self.parts.push(shared.clone()),
            _ => self.parts.push(Part::Shared(children.clone())),
        }
        list.parts += 1;
        list.len += children.len;
        list.holds_error |= children.holds_error;
        list.holds_boundary |= children.holds_boundary;
    }

    /// Takes `list` off the stack as a [`Children`]: the same nodes [`ChildrenBuilder`] builds
    /// from the same parts. A list that only shares another is that other list, as
    /// [`ChildrenBuilder::append`] would make it: no allocation, no extra level to walk.
    #[inline]
    pub(crate) fn finish(&mut self, list: StackedList) -> Children {
        self.check_top(&list);
        if list.parts == 0 {
            return Children::default();
        }
        if list.parts == 1
            && let Some(Part::Shared(_)) = self.parts.last()
            && let Some(Part::Shared(shared)) = self.parts.pop()
        {
            return shared;
        }
        Children {
            parts: self.parts.drain(list.start..).collect(),
            len: list.len,
            holds_error: list.holds_error,
            holds_boundary: list.holds_boundary,
        }
    }

    /// Makes the parts of `inner`, the list on top, parts of `list`, the list just below it:
    /// the same nodes as appending `inner` finished, without a list of its own.
    pub(crate) fn absorb(&mut self, list: &mut StackedList, inner: StackedList) {
        self.check_top(&inner);
        debug_assert_eq!(
            inner.start,
            list.start + list.parts,
            "a list absorbs the list just above it"
        );
        list.parts += inner.parts;
        list.len += inner.len;
        list.holds_error |= inner.holds_error;
        list.holds_boundary |= inner.holds_boundary;
    }

    /// Takes `list` off the stack as its one node when it is one node and nothing else;
    /// otherwise gives it back.
    pub(crate) fn take_only_node(&mut self, list: StackedList) -> Result<Node, StackedList> {
        self.check_top(&list);
        if list.parts == 1
            && let Some(Part::Node(_)) = self.parts.last()
            && let Some(Part::Node(node)) = self.parts.pop()
        {
            return Ok(node);
        }
        Err(list)
    }

    /// Takes `list` off the stack unused.
    pub(crate) fn discard(&mut self, list: StackedList) {
        self.check_top(&list);
        self.parts.truncate(list.start);
    }

    /// `list` is the list on top: every list opened above it was finished or discarded.
    fn check_top(&self, list: &StackedList) {
        debug_assert_eq!(
            self.parts.len(),
            list.start + list.parts,
            "a list is built on top of the stack"
        );
    }

    /// Empties the stack (after a build that failed part-way).
    pub(crate) fn clear(&mut self) {
        self.parts.clear();
    }
}

/// The nodes of a [`Children`], in order.
pub struct Iter<'a> {
    stack: Vec<std::slice::Iter<'a, Part>>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a Node;

    fn next(&mut self) -> Option<&'a Node> {
        loop {
            let top = self.stack.last_mut()?;
            match top.next() {
                Some(Part::Node(node)) => return Some(node),
                Some(Part::Shared(shared)) => self.stack.push(shared.parts.iter()),
                None => {
                    self.stack.pop();
                }
            }
        }
    }
}

impl<'a> IntoIterator for &'a Children {
    type Item = &'a Node;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl FromIterator<Node> for Children {
    fn from_iter<I: IntoIterator<Item = Node>>(nodes: I) -> Self {
        let mut builder = ChildrenBuilder::default();
        nodes.into_iter().for_each(|node| builder.push(node));
        builder.finish()
    }
}

impl From<Vec<Node>> for Children {
    fn from(nodes: Vec<Node>) -> Self {
        nodes.into_iter().collect()
    }
}

impl PartialEq for Children {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl fmt::Debug for Children {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Children {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Children {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<Node>::deserialize(deserializer).map(Children::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(text: &str) -> Node {
        Node::Text { text: text.into() }
    }

    #[test]
    fn shared_parts_read_and_serialize_as_one_flat_list() {
        let shared = Children::from(vec![text("b"), text("c")]);
        let mut builder = ChildrenBuilder::default();
        builder.push(text("a"));
        builder.append(&shared);
        builder.append(&Children::default());
        builder.append(&Children::from(vec![text("d")]));
        let children = builder.finish();
        let flat = vec![text("a"), text("b"), text("c"), text("d")];
        assert_eq!(children.len(), 4);
        assert_eq!(children.to_vec(), flat);
        assert_eq!(children, Children::from(flat.clone()));
        assert_eq!(
            serde_json::to_value(&children).unwrap(),
            serde_json::to_value(&flat).unwrap()
        );
        let back: Children = serde_json::from_value(serde_json::to_value(&flat).unwrap()).unwrap();
        assert_eq!(back, children);
        assert_ne!(children, Children::from(vec![text("a"), text("b")]));
    }

    #[test]
    fn flattening_lifts_boundary_children_and_shares_the_rest() {
        let inner = Children::from(vec![text("x"), text("y")]);
        let boundary = Node::Boundary {
            id: "b1".into(),
            state: crate::document::BoundaryState::Resolved,
            children: Children::from(vec![text("in"), text("side")]),
        };
        let mut builder = ChildrenBuilder::default();
        builder.append(&inner);
        builder.push(boundary);
        let mut flat = ChildrenBuilder::default();
        builder.finish().flatten_into(&mut flat);
        assert_eq!(
            flat.finish().to_vec(),
            vec![text("x"), text("y"), text("in"), text("side")]
        );
    }
}
