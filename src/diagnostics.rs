//! Diagnostics: every problem found in a rule file, or in the options given
//! for it, is a [`Diagnostic`] that points at the exact span of the file it is
//! in. Checking collects them all instead of stopping at the first.

use std::fmt;
use std::sync::Arc;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceSpan};

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
    source: Option<Window>,
    file: u16,
}

/// A source file as diagnostics read it: the text (as [`drawable`]) and
/// where each line starts. miette finds a span's lines by reading from the
/// start of the text, so drawing a diagnostic near the end of a long file
/// took time in proportion to the file, and thousands of them in proportion
/// to its square: here miette reads only a window of lines around the span.
#[derive(Debug, Clone)]
struct Window {
    name: String,
    text: Arc<str>,
    lines: Arc<Vec<usize>>,
}

impl Window {
    fn new(name: &str, text: &Arc<str>) -> Window {
        let lines = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        Window { name: escape_controls(name).into_owned(), text: drawable(text), lines: Arc::new(lines) }
    }

    /// The 0-based line that holds byte `offset`.
    fn line(&self, offset: usize) -> usize {
        self.lines.partition_point(|&s| s <= offset).saturating_sub(1)
    }

    /// 1-based line and column of a byte offset.
    fn line_col(&self, offset: usize) -> (usize, usize) {
        let line = self.line(offset);
        let start = self.lines[line];
        let col = self.text.get(start..offset.min(self.text.len())).map_or(0, |t| t.chars().count());
        (line + 1, col + 1)
    }
}

impl miette::SourceCode for Window {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        // miette's own reading, on lines from a little before the span to a
        // little after it; its lines and offsets shifted back to the file's.
        let first = self.line(span.offset()).saturating_sub(before + 1);
        let last = self.line(span.offset() + span.len()) + after + 2;
        let from = self.lines[first];
        let to = self.lines.get(last).copied().unwrap_or(self.text.len());
        let bytes = &self.text.as_bytes()[from..to];
        let local = SourceSpan::new((span.offset() - from).into(), span.len());
        let c = <[u8] as miette::SourceCode>::read_span(bytes, &local, before, after)?;
        Ok(Box::new(miette::MietteSpanContents::new_named(
            self.name.clone(),
            c.data(),
            SourceSpan::new((c.span().offset() + from).into(), c.span().len()),
            c.line() + first,
            c.column(),
            c.line_count() + first,
        )))
    }
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
    let windows: Vec<Window> = sources.files.iter().map(|f| Window::new(&f.name, &f.text)).collect();
    let mut out = String::new();
    for d in diags.iter().take(MAX_DRAWN) {
        let file = d.span.map(|s| s.file).unwrap_or(0);
        let mut source = d.span.and_then(|s| windows.get(s.file as usize)).cloned();
        let mut diag = d.clone();
        diag.message = escape_controls(&diag.message).into_owned();
        // miette cannot draw lines thousands of columns long: such a place
        // is told by line and column instead.
        if let Some((span, w)) = d.span.and_then(|s| windows.get(s.file as usize).map(|w| (s, w))) {
            let line = w.line(span.start);
            let line_start = w.lines[line];
            let line_end = w.lines.get(line + 1).map_or(w.text.len(), |&e| e - 1);
            if line_end - line_start > MAX_DRAWN_LINE || span.end > line_end + MAX_DRAWN_LINE {
                let (line, col) = w.line_col(span.start);
                diag.message = format!("{} ({}:{line}:{col})", diag.message, w.name);
                diag.span = None;
                source = None;
            }
        }
        // A note in another file (a base rule file) is told in words.
        for n in d.notes.iter().filter(|n| n.span.file != file) {
            if let Some(w) = windows.get(n.span.file as usize) {
                let (line, col) = w.line_col(n.span.start);
                let extra = format!("{} ({}:{}:{})", n.text, w.name, line, col);
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
    if diags.len() > MAX_DRAWN {
        out.push_str(&format!(
            "  ... and {} more (the first {MAX_DRAWN} are shown; `check --json` lists all)\n",
            diags.len() - MAX_DRAWN
        ));
    }
    out
}

/// Most diagnostics drawn in full; more are counted.
const MAX_DRAWN: usize = 500;

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
        let windows: Vec<Window> = self.sources.files.iter().map(|f| Window::new(&f.name, &f.text)).collect();
        let one = |d: &Diagnostic| {
            let place = d.span.and_then(|s| windows.get(s.file as usize).map(|w| (s, w)));
            let (file, line, column) = match place {
                Some((s, w)) => {
                    let (l, c) = w.line_col(s.start);
                    (Some(self.sources.files[s.file as usize].name.clone()), Some(l), Some(c))
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
