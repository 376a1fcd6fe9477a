//! Support code for the `abgen check` benchmark: a generator of synthetic projects of any
//! size and the parse floor abgen is compared with. The driver (`run.py`) and the Node peer
//! (`ts-walk.mjs`) live beside this crate; the bins here are thin wrappers.

pub mod floor;
pub mod generate;
