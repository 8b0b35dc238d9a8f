//! mancala: a rules-definition language for mancala games, and its interpreter.
//!
//! The flow runs one way: text -> [`syntax`] (pest parse tree, typed AST with
//! spans) -> [`compile`] (checked, with precomputed tracks and tables) ->
//! [`engine`] (state, legal moves, apply, undo, outcome) -> front ends.

pub mod ai;
pub mod analysis;
pub mod cli;
pub mod compile;
pub mod diagnostics;
pub mod engine;
pub mod files;
pub mod hooks;
pub mod perft;
pub mod position_text;
pub mod record;
pub mod render;
pub mod session;
pub mod syntax;
