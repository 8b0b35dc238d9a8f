//! Diagnostics: every problem found in a rule file, or in the options given
//! for it, is a [`Diagnostic`] that points at the exact span of the file it is
//! in. Checking collects them all instead of stopping at the first.

use std::fmt;
use std::sync::Arc;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceSpan};

/// A byte span in one of the loaded source files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: u16,
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(file: u16, start: usize, end: usize) -> Self {
        Span { file, start, end }
    }
    /// A span from the start of `self` to the end of `other`.
    pub fn to(self, other: Span) -> Span {
        Span { file: self.file, start: self.start.min(other.start), end: self.end.max(other.end) }
    }
}

/// One loaded source file: its display name and its text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub name: String,
    pub text: Arc<str>,
}

/// The files a rule set was loaded from (a rule file and what it extends).
#[derive(Debug, Clone, Default)]
pub struct Sources {
    pub files: Vec<SourceFile>,
    /// Mistakes found while reading the files that did not stop the reading.
    pub problems: Vec<Diagnostic>,
}

impl Sources {
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<Arc<str>>) -> u16 {
        self.files.push(SourceFile { name: name.into(), text: text.into() });
        (self.files.len() - 1) as u16
    }
    pub fn text(&self, span: Span) -> &str {
        self.files.get(span.file as usize).and_then(|f| f.text.get(span.start..span.end)).unwrap_or("")
    }
}

/// A secondary label: another place that explains the error.
#[derive(Debug, Clone)]
pub struct Note {
    pub span: Span,
    pub text: String,
}

/// One problem, with where it is, what is wrong, and how to fix it. Boxed,
/// so that results carrying one stay small.
#[derive(Debug, Clone)]
pub struct Diagnostic(Box<DiagnosticData>);

impl std::ops::Deref for Diagnostic {
    type Target = DiagnosticData;
    fn deref(&self) -> &DiagnosticData {
        &self.0
    }
}

impl std::ops::DerefMut for Diagnostic {
    fn deref_mut(&mut self) -> &mut DiagnosticData {
        &mut self.0
    }
}

#[derive(Debug, Clone)]
pub struct DiagnosticData {
    pub message: String,
    /// Where the problem is; `None` for problems outside any file (a command
    /// line option naming a variant that does not exist, say).
    pub span: Option<Span>,
    pub label: String,
    pub notes: Vec<Note>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic(Box::new(DiagnosticData {
            message: message.into(),
            span: Some(span),
            label: String::new(),
            notes: vec![],
            help: None,
        }))
    }
    pub fn global(message: impl Into<String>) -> Self {
        Diagnostic(Box::new(DiagnosticData {
            message: message.into(),
            span: None,
            label: String::new(),
            notes: vec![],
            help: None,
        }))
    }
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    pub fn maybe_help(mut self, help: Option<String>) -> Self {
        if help.is_some() {
            self.help = help;
        }
        self
    }
    pub fn note(mut self, span: Span, text: impl Into<String>) -> Self {
        self.notes.push(Note { span, text: text.into() });
        self
    }
}

/// "did you mean `x`?" for the closest of `candidates` to `name`, if any is close.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut best: Option<(f64, &str)> = None;
    for c in candidates {
        let score = strsim::jaro_winkler(name, c);
        let close = score > 0.8 || strsim::levenshtein(name, c) <= (name.len() / 3).max(1);
        if close && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, c));
        }
    }
    best.map(|(_, c)| format!("did you mean `{c}`?"))
}

/// A diagnostic bound to its source file, in the form miette renders.
#[derive(Debug)]
struct Rendered {
    diag: Diagnostic,
    source: Option<NamedSource<Arc<str>>>,
    file: u16,
}

impl fmt::Display for Rendered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diag.message)
    }
}
impl std::error::Error for Rendered {}

impl miette::Diagnostic for Rendered {
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.diag.help.as_ref().map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source.as_ref().map(|s| s as &dyn miette::SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = self.diag.span?;
        let mut labels = vec![LabeledSpan::new_with_span(
            (!self.diag.label.is_empty()).then(|| self.diag.label.clone()),
            SourceSpan::from(span.start..span.end),
        )];
        // Notes in the same file become extra labels; notes elsewhere are
        // rendered as related diagnostics' text by `render`.
        for n in &self.diag.notes {
            if n.span.file == self.file {
                labels
                    .push(LabeledSpan::new_with_span(Some(n.text.clone()), SourceSpan::from(n.span.start..n.span.end)));
            }
        }
        Some(Box::new(labels.into_iter()))
    }
}

/// Text from a rule file, a hook or a record with its control characters
/// written as escapes (`\x1b`, `\u{9b}`), so that printing it cannot
/// recolour the terminal or set its title. Newlines and tabs stay.
pub fn escape_controls(s: &str) -> std::borrow::Cow<'_, str> {
    let bad = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !s.chars().any(bad) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            c if !bad(c) => out.push(c),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A source text as diagnostics draw it: each byte of a control character
/// (but newlines, tabs and carriage returns) shown as `?`, so the byte
/// offsets of spans still hold and the terminal is not driven by the file.
fn drawable(text: &Arc<str>) -> Arc<str> {
    let bad = |c: char| c.is_control() && !matches!(c, '\n' | '\t' | '\r');
    if !text.chars().any(bad) {
        return text.clone();
    }
    text.chars().map(|c| if bad(c) { "?".repeat(c.len_utf8()) } else { c.to_string() }).collect::<String>().into()
}

/// Renders diagnostics as plain text (no colour, fixed width), as they appear
/// in snapshots and when output is not a terminal; with `color`, as miette's
/// fancy terminal output.
pub fn render(diags: &[Diagnostic], sources: &Sources, color: bool) -> String {
    let theme = if color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(100).with_links(false);
    let mut out = String::new();
    for d in diags {
        let file = d.span.map(|s| s.file).unwrap_or(0);
        let mut source = d
            .span
            .and_then(|s| sources.files.get(s.file as usize))
            .map(|f| NamedSource::new(escape_controls(&f.name), drawable(&f.text)));
        let mut diag = d.clone();
        diag.message = escape_controls(&diag.message).into_owned();
        // miette cannot draw lines thousands of columns long: such a place
        // is told by line and column instead.
        if let Some((span, f)) = d.span.and_then(|s| sources.files.get(s.file as usize).map(|f| (s, f))) {
            let line_start = f.text[..span.start.min(f.text.len())].rfind('\n').map_or(0, |i| i + 1);
            let line_end = f.text[line_start..].find('\n').map_or(f.text.len(), |i| line_start + i);
            if line_end - line_start > MAX_DRAWN_LINE || span.end > line_end + MAX_DRAWN_LINE {
                let (line, col) = line_col(&f.text, span.start);
                diag.message = format!("{} ({}:{line}:{col})", diag.message, f.name);
                diag.span = None;
                source = None;
            }
        }
        // A note in another file (a base rule file) is told in words.
        for n in d.notes.iter().filter(|n| n.span.file != file) {
            if let Some(f) = sources.files.get(n.span.file as usize) {
                let (line, col) = line_col(&f.text, n.span.start);
                let extra = format!("{} ({}:{}:{})", n.text, f.name, line, col);
                diag.help = Some(match diag.help.take() {
                    Some(h) => format!("{h}\n{extra}"),
                    None => extra,
                });
            }
        }
        let r = Rendered { diag, source, file };
        if handler.render_report(&mut out, &r).is_err() {
            out.push_str(&format!("error: {}\n", d.message));
        }
    }
    out
}

/// Longest line a diagnostic draws with its source.
const MAX_DRAWN_LINE: usize = 2000;

/// 1-based line and column of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
    (line, col)
}

/// The error a front end reports: diagnostics, already bound to their sources.
#[derive(Debug, Clone)]
pub struct Failure {
    pub diagnostics: Vec<Diagnostic>,
    pub sources: Sources,
}

impl Failure {
    pub fn render(&self, color: bool) -> String {
        render(&self.diagnostics, &self.sources, color)
    }

    /// The diagnostics as JSON, for scripts and editors: each with its
    /// message, file, 1-based line and column, label and help.
    pub fn to_json(&self) -> serde_json::Value {
        let one = |d: &Diagnostic| {
            let place = d.span.and_then(|s| self.sources.files.get(s.file as usize).map(|f| (s, f)));
            let (file, line, column) = match place {
                Some((s, f)) => {
                    let (l, c) = line_col(&f.text, s.start);
                    (Some(f.name.clone()), Some(l), Some(c))
                }
                None => (None, None, None),
            };
            serde_json::json!({
                "message": d.message,
                "file": file,
                "line": line,
                "column": column,
                "label": (!d.label.is_empty()).then(|| d.label.clone()),
                "help": d.help,
            })
        };
        serde_json::Value::Array(self.diagnostics.iter().map(one).collect())
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}
impl std::error::Error for Failure {}
