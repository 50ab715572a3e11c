//! Reading input documents (TOML for people, JSON for programs).
//!
//! A [`Source`] keeps the text of a file next to its name so that any later
//! error (a type error from serde, or a semantic one from validation) can be
//! pointed at the line it comes from. TOML errors get a line for every field
//! because `toml_edit` keeps spans; JSON errors get a line for syntax and type
//! errors and the field path for semantic ones.

use crate::error::InputError;
use serde::de::DeserializeOwned;
use std::path::Path;
use std::sync::OnceLock;

/// Largest input file read, bytes (1 GiB).
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// The two accepted document formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// TOML (the default for files people write).
    Toml,
    /// JSON (for generated files).
    Json,
}

impl Format {
    /// Guess from a file name: `.json` is JSON, everything else TOML.
    pub fn from_path(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("json") => Format::Json,
            _ => Format::Toml,
        }
    }
}

/// An input document: its label (file name), text and format.
pub struct Source {
    /// File name or label used in error messages.
    pub label: String,
    /// Full text (not to be changed once errors have been located: the
    /// parsed form used to find lines is kept).
    pub text: String,
    /// How to parse it.
    pub format: Format,
    /// The TOML document with spans, parsed once for every error located
    /// (a file with thousands of errors would otherwise be parsed
    /// thousands of times).
    spans: OnceLock<Option<Spans>>,
}

/// A parsed TOML document and where its lines start.
struct Spans {
    doc: toml_edit::ImDocument<String>,
    line_starts: Vec<usize>,
}

impl Clone for Source {
    fn clone(&self) -> Source {
        Source::new(self.label.clone(), self.text.clone(), self.format)
    }
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Source")
            .field("label", &self.label)
            .field("text", &self.text)
            .field("format", &self.format)
            .finish()
    }
}

impl Source {
    /// Read a file; the format comes from its extension. Files above
    /// [`MAX_FILE_BYTES`] (or endless ones such as `/dev/zero`) are an
    /// error.
    pub fn read(path: &Path) -> Result<Source, InputError> {
        use std::io::Read as _;
        let label = path.display().to_string();
        let cannot = |e: std::io::Error| InputError::file(&label, format!("cannot read file: {e}"));
        let too_big = || {
            InputError::file(
                &label,
                format!("the file is larger than the limit of {MAX_FILE_BYTES} bytes"),
            )
        };
        let f = std::fs::File::open(path).map_err(cannot)?;
        if f.metadata()
            .is_ok_and(|m| m.is_file() && m.len() > MAX_FILE_BYTES)
        {
            return Err(too_big());
        }
        let mut text = String::new();
        f.take(MAX_FILE_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(cannot)?;
        if text.len() as u64 > MAX_FILE_BYTES {
            return Err(too_big());
        }
        // A UTF-8 byte order mark (some editors write one) is not content:
        // JSON parsers refuse it.
        if text.starts_with('\u{feff}') {
            text.drain(..'\u{feff}'.len_utf8());
        }
        Ok(Source::new(label, text, Format::from_path(path)))
    }

    /// A document held in memory (built-in examples, tests).
    pub fn new(label: impl Into<String>, text: impl Into<String>, format: Format) -> Source {
        Source {
            label: label.into(),
            text: text.into(),
            format,
            spans: OnceLock::new(),
        }
    }

    /// Deserialize the whole document. Errors carry line, column and the
    /// field path.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, InputError> {
        match self.format {
            Format::Toml => {
                let de = toml::Deserializer::new(&self.text);
                serde_path_to_error::deserialize(de).map_err(|e| {
                    let path = e.path().to_string();
                    let inner = e.into_inner();
                    let (line, column) = match inner.span() {
                        Some(span) => line_col(&self.text, span.start),
                        None => (None, None),
                    };
                    InputError {
                        file: self.label.clone(),
                        line,
                        column,
                        field: (path != ".").then_some(path),
                        message: inner.message().trim().to_string(),
                    }
                })
            }
            Format::Json => {
                let mut de = serde_json::Deserializer::from_str(&self.text);
                let v = serde_path_to_error::deserialize(&mut de).map_err(|e| {
                    let path = e.path().to_string();
                    let inner = e.into_inner();
                    json_error(&self.label, Some(path), inner)
                })?;
                de.end().map_err(|e| json_error(&self.label, None, e))?;
                Ok(v)
            }
        }
    }

    /// The 1-based line where the value at `field` (such as
    /// `jobs[3].deadline_s`) is written, when it can be found.
    pub fn line_of(&self, field: &str) -> Option<usize> {
        match self.format {
            Format::Toml => {
                let spans = self
                    .spans
                    .get_or_init(|| {
                        let doc = toml_edit::ImDocument::parse(self.text.clone()).ok()?;
                        let line_starts = std::iter::once(0)
                            .chain(self.text.match_indices('\n').map(|(i, _)| i + 1))
                            .collect();
                        Some(Spans { doc, line_starts })
                    })
                    .as_ref()?;
                toml_line_of(&spans.line_starts, &spans.doc, field)
            }
            Format::Json => None,
        }
    }

    /// An error about `field`, located in this document.
    pub fn error(&self, field: impl Into<String>, message: impl Into<String>) -> InputError {
        let field = field.into();
        let line = self.line_of(&field);
        InputError::field(&self.label, field, message).at_line(line)
    }
}

fn json_error(label: &str, path: Option<String>, e: serde_json::Error) -> InputError {
    let msg = e.to_string();
    // serde_json appends " at line L column C"; we report those separately.
    let msg = match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    };
    InputError {
        file: label.to_string(),
        line: (e.line() > 0).then_some(e.line()),
        column: (e.column() > 0).then_some(e.column()),
        field: path.filter(|p| p != "."),
        message: msg,
    }
}

fn line_col(text: &str, offset: usize) -> (Option<usize>, Option<usize>) {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = offset
        - before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1)
        + 1;
    (Some(line), Some(col))
}

enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

fn split_path(path: &str) -> Option<Vec<Seg<'_>>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !key.is_empty() {
            out.push(Seg::Key(key));
        }
        while let Some(stripped) = rest.strip_prefix('[') {
            let end = stripped.find(']')?;
            out.push(Seg::Index(stripped[..end].parse().ok()?));
            rest = &stripped[end + 1..];
        }
    }
    Some(out)
}

/// The 1-based line of byte `offset`, from the offsets where lines start.
fn line_at(line_starts: &[usize], offset: usize) -> usize {
    line_starts.partition_point(|&s| s <= offset).max(1)
}

fn toml_line_of(text: &[usize], doc: &toml_edit::ImDocument<String>, field: &str) -> Option<usize> {
    use toml_edit::{Item, Value};
    let segs = split_path(field)?;
    let mut item: &Item = doc.as_item();
    let mut span = None;
    for seg in segs {
        match seg {
            Seg::Key(k) => {
                let table = item.as_table_like()?;
                let (key, it) = table.get_key_value(k)?;
                span = key.span().or(it.span()).or(span);
                item = it;
            }
            Seg::Index(i) => match item {
                Item::ArrayOfTables(a) => {
                    let t = a.get(i)?;
                    span = t.span().or(span);
                    // Re-enter as an item for the next key lookup.
                    return locate_in_table(text, t, &field_after_index(field, i), span);
                }
                Item::Value(Value::Array(a)) => {
                    let v = a.get(i)?;
                    span = v.span().or(span);
                    if let Value::InlineTable(t) = v {
                        let rest = field_after_index(field, i);
                        if rest.is_empty() {
                            break;
                        }
                        let (key, it) = t.get_key_value(first_key(&rest))?;
                        span = key.span().or(it.span()).or(span);
                        break;
                    }
                    break;
                }
                _ => return None,
            },
        }
    }
    span.map(|s| line_at(text, s.start))
}

/// The part of `field` after the first `[i]` (without a leading dot).
fn field_after_index(field: &str, i: usize) -> String {
    let pat = format!("[{i}]");
    match field.find(&pat) {
        Some(p) => field[p + pat.len()..].trim_start_matches('.').to_string(),
        None => String::new(),
    }
}

fn first_key(rest: &str) -> &str {
    let end = rest.find(['.', '[']).unwrap_or(rest.len());
    &rest[..end]
}

fn locate_in_table(
    text: &[usize],
    t: &toml_edit::Table,
    rest: &str,
    span: Option<std::ops::Range<usize>>,
) -> Option<usize> {
    let mut span = span;
    if !rest.is_empty() {
        if let Some((key, it)) = t.get_key_value(first_key(rest)) {
            span = key.span().or(it.span()).or(span);
        }
    }
    span.map(|s| line_at(text, s.start))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Doc {
        name: String,
        #[serde(default)]
        jobs: Vec<Job>,
    }
    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Job {
        arrival_s: f64,
        #[serde(default)]
        maps: u32,
    }

    #[test]
    fn toml_type_error_has_line_and_path() {
        let src = Source::new(
            "w.toml",
            "name = \"x\"\n\n[[jobs]]\narrival_s = 1\n\n[[jobs]]\narrival_s = \"soon\"\n",
            Format::Toml,
        );
        let e = src.parse::<Doc>().unwrap_err();
        assert_eq!(e.line, Some(7));
        assert_eq!(e.field.as_deref(), Some("jobs[1].arrival_s"));
        assert!(e.to_string().starts_with("w.toml:7:"), "{e}");
    }

    #[test]
    fn toml_negative_count_is_rejected() {
        let src = Source::new(
            "w.toml",
            "name = \"x\"\n[[jobs]]\narrival_s = 1\nmaps = -3\n",
            Format::Toml,
        );
        let e = src.parse::<Doc>().unwrap_err();
        assert_eq!(e.line, Some(4));
        assert_eq!(e.field.as_deref(), Some("jobs[0].maps"));
    }

    #[test]
    fn unknown_field_is_an_error() {
        let src = Source::new("w.toml", "name = \"x\"\nnmae = 3\n", Format::Toml);
        let e = src.parse::<Doc>().unwrap_err();
        assert!(e.message.contains("unknown field"), "{e}");
        assert_eq!(e.line, Some(2));
    }

    #[test]
    fn json_error_has_line_and_path() {
        let src = Source::new(
            "w.json",
            "{\"name\": \"x\",\n \"jobs\": [{\"arrival_s\": 1},\n {\"arrival_s\": true}]}",
            Format::Json,
        );
        let e = src.parse::<Doc>().unwrap_err();
        assert_eq!(e.line, Some(3));
        assert_eq!(e.field.as_deref(), Some("jobs[1].arrival_s"));
    }

    #[test]
    fn semantic_error_is_located() {
        let text = "name = \"x\"\n[[jobs]]\narrival_s = 1\n[[jobs]]\narrival_s = 2\nmaps = 0\n";
        let src = Source::new("w.toml", text, Format::Toml);
        assert_eq!(src.line_of("jobs[1].maps"), Some(6));
        assert_eq!(src.line_of("jobs[1]"), Some(4));
        assert_eq!(src.line_of("name"), Some(1));
        let e = src.error("jobs[1].maps", "must be at least 1");
        assert_eq!(e.to_string(), "w.toml:6: jobs[1].maps: must be at least 1");
    }

    #[test]
    fn endless_files_are_an_error() {
        #[cfg(unix)]
        {
            let t = std::time::Instant::now();
            let e = Source::read(Path::new("/dev/zero")).unwrap_err();
            assert!(
                e.to_string()
                    .contains("larger than the limit of 1073741824 bytes")
                    || e.to_string().contains("cannot read file"),
                "{e}"
            );
            assert!(t.elapsed().as_secs() < 60);
        }
        let e = Source::read(Path::new("/nonexistent/x.toml")).unwrap_err();
        assert!(e.to_string().contains("cannot read file"), "{e}");
    }

    #[test]
    fn inline_array_elements_are_located() {
        let text = "name = \"x\"\nfaults = [\n  { node = \"a\", at_s = 1 },\n  { node = \"b\", at_s = -1 },\n]\n";
        let src = Source::new("c.toml", text, Format::Toml);
        assert_eq!(src.line_of("faults[1].at_s"), Some(4));
    }
}
