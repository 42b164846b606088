#![doc = include_str!("../README.md")]

pub use nape_core::*;
