//! Text to typed syntax tree: the pest grammar in `grammar/mancala.pest`, and
//! the lowering of its parse tree into [`ast`] nodes with byte spans.

pub mod ast;
mod parse;

pub use parse::parse;
