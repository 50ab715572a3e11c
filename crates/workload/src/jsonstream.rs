//! Streams of JSON records, as Hadoop's trace tools write them.
//!
//! SLS job traces and Rumen job traces are not one JSON document but one
//! object per job written one after another (Jackson's `readValues`, which
//! both tools read them with, also accepts the objects wrapped in one
//! array). Each record is cut out of the text first, so that an error names
//! the record (its number and job id) besides the line and field, and one
//! malformed record does not hide the others. Records are then deserialized
//! one by one through `serde_path_to_error` for the field path; checks made
//! after parsing find their field's line with [`Record::locate`].

use mrsched_model::{InputError, InputErrors, Source};
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use std::fmt;

/// Most errors collected from one trace before reading stops.
pub const MAX_ERRORS: usize = 50;

/// One JSON object of a trace.
#[derive(Clone, Debug)]
pub struct Record<'a> {
    /// 1-based position in the file.
    pub number: usize,
    /// The object's text.
    pub text: &'a str,
    /// 1-based line where it starts.
    pub line: usize,
    /// 1-based column where it starts.
    pub column: usize,
}

/// One step of a field path: an object key or an array index.
#[derive(Copy, Clone, Debug)]
pub enum Seg<'k> {
    /// An object member.
    Key(&'k str),
    /// An array element.
    Index(usize),
}

/// A path as printed: keys joined by dots, indices in brackets
/// (`job.tasks[1].container.end.ms`).
pub fn path_string(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

fn line_col(starts: &[usize], offset: usize) -> (usize, usize) {
    let line = starts.partition_point(|&s| s <= offset).max(1);
    (line, offset - starts[line - 1] + 1)
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The index after the string opening at `i` (its end when unterminated).
fn string_end(b: &[u8], i: usize) -> usize {
    let mut k = i + 1;
    while k < b.len() {
        match b[k] {
            b'\\' => k += 2,
            b'"' => return k + 1,
            _ => k += 1,
        }
    }
    b.len()
}

/// The index after the value starting at `i`: a string, an object or array
/// (brackets counted outside strings; an unterminated one runs to the end)
/// or a scalar.
fn value_end(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(b'"') => string_end(b, i),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut k = i;
            while k < b.len() {
                match b[k] {
                    b'"' => {
                        k = string_end(b, k);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return k + 1;
                        }
                    }
                    _ => {}
                }
                k += 1;
            }
            b.len()
        }
        _ => {
            let mut k = i;
            while k < b.len() && !matches!(b[k], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                k += 1;
            }
            k.max(i + 1).min(b.len())
        }
    }
}

/// A few characters of `text` from `i` (up to a blank), for messages.
fn snippet(text: &str, i: usize) -> String {
    text[i..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .take(20)
        .collect::<String>()
}

/// Cut a trace into its records: JSON objects one after another, or one
/// array of them. Text between or after records that is not an object is an
/// error at its line; so is a file without any record.
pub fn split(src: &Source) -> Result<Vec<Record<'_>>, InputErrors> {
    let text = src.text.as_str();
    let b = text.as_bytes();
    let starts = line_starts(text);
    let at = |i: usize, msg: String| {
        let (line, col) = line_col(&starts, i.min(text.len()));
        InputError {
            file: src.label.clone(),
            line: Some(line),
            column: Some(col),
            field: None,
            message: msg,
        }
    };
    let mut recs = Vec::new();
    let mut i = skip_ws(b, 0);
    let array = b.get(i) == Some(&b'[');
    if array {
        i = skip_ws(b, i + 1);
    }
    loop {
        let n = recs.len() + 1;
        match b.get(i) {
            None if array => {
                return Err(at(i, "the array of records is not closed with `]`".into()).into())
            }
            None => break,
            Some(b']') if array => {
                let j = skip_ws(b, i + 1);
                if j < b.len() {
                    return Err(at(
                        j,
                        format!(
                            "unexpected text after the array of records: `{}`",
                            snippet(text, j)
                        ),
                    )
                    .into());
                }
                break;
            }
            Some(b'{') => {}
            Some(_) => {
                return Err(at(
                    i,
                    format!(
                        "record {n}: expected `{{` opening a JSON object, found `{}`",
                        snippet(text, i)
                    ),
                )
                .into())
            }
        }
        let end = value_end(b, i);
        let (line, column) = line_col(&starts, i);
        recs.push(Record {
            number: n,
            text: &text[i..end],
            line,
            column,
        });
        i = skip_ws(b, end);
        if array {
            match b.get(i) {
                Some(b',') => i = skip_ws(b, i + 1),
                Some(b']') | None => {}
                Some(_) => {
                    return Err(at(
                        i,
                        format!(
                            "expected `,` or `]` after record {n}, found `{}`",
                            snippet(text, i)
                        ),
                    )
                    .into())
                }
            }
        }
    }
    if recs.is_empty() {
        return Err(
            InputError::file(&src.label, "the trace has no jobs (no JSON object in it)").into(),
        );
    }
    Ok(recs)
}

impl Record<'_> {
    /// How the record is named in errors: `record 2 (job `job_2`)`.
    pub fn name(&self, id: Option<&str>) -> String {
        match id {
            Some(id) => format!("record {} (job `{id}`)", self.number),
            None => format!("record {}", self.number),
        }
    }

    /// Deserialize the record. A syntax or type error names the record, the
    /// job id when `id_key` can still be read, the line, column and field.
    pub fn parse<T: DeserializeOwned>(&self, src: &Source, id_key: &str) -> Result<T, InputError> {
        let mut de = serde_json::Deserializer::from_str(self.text);
        let res = match serde_path_to_error::deserialize(&mut de) {
            Ok(v) => de.end().map(|()| v).map_err(|e| (".".to_string(), e)),
            Err(e) => Err((e.path().to_string(), e.into_inner())),
        };
        res.map_err(|(path, inner)| {
            let id = self.probe_id(id_key);
            let rec = self.name(id.as_deref());
            let msg = inner.to_string();
            let msg = match msg.rfind(" at line ") {
                Some(i) => msg[..i].to_string(),
                None => msg,
            };
            let (line, column) = if inner.line() == 0 {
                (self.line, self.column)
            } else if inner.line() == 1 {
                (self.line, self.column + inner.column().saturating_sub(1))
            } else {
                (self.line + inner.line() - 1, inner.column())
            };
            InputError {
                file: src.label.clone(),
                line: Some(line),
                column: Some(column),
                field: Some(if path == "." || path == "?" {
                    rec
                } else {
                    format!("{rec}, {path}")
                }),
                message: msg,
            }
        })
    }

    /// The job id of a record that did not deserialize, when it is a string
    /// or number at the top level.
    fn probe_id(&self, key: &str) -> Option<String> {
        let v: serde_json::Map<String, serde_json::Value> = serde_json::from_str(self.text).ok()?;
        match v.get(key)? {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }

    /// The 1-based line and column of the value at `path` in the record
    /// (the record's start when the path is not there).
    pub fn locate(&self, path: &[Seg]) -> (usize, usize) {
        let off = locate(self.text, path);
        let before = &self.text[..off.unwrap_or(0)];
        let nl = before.matches('\n').count();
        match before.rfind('\n') {
            None => (self.line, self.column + before.len()),
            Some(p) => (self.line + nl, before.len() - p),
        }
    }

    /// An error about the value at `path`, located.
    pub fn error(
        &self,
        src: &Source,
        id: Option<&str>,
        path: &[Seg],
        message: impl Into<String>,
    ) -> InputError {
        let (line, column) = self.locate(path);
        let p = path_string(path);
        let rec = self.name(id);
        InputError {
            file: src.label.clone(),
            line: Some(line),
            column: Some(column),
            field: Some(if p.is_empty() {
                rec
            } else {
                format!("{rec}, {p}")
            }),
            message: message.into(),
        }
    }
}

/// The byte offset of the value at `path` in the JSON `text` (which has
/// already parsed), or `None` when a step is missing.
fn locate(text: &str, path: &[Seg]) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    for seg in path {
        match *seg {
            Seg::Key(k) => {
                if b.get(i) != Some(&b'{') {
                    return None;
                }
                i = skip_ws(b, i + 1);
                loop {
                    if b.get(i) != Some(&b'"') {
                        return None;
                    }
                    let kend = string_end(b, i);
                    let key = text.get(i + 1..kend.saturating_sub(1))?;
                    i = skip_ws(b, kend);
                    if b.get(i) != Some(&b':') {
                        return None;
                    }
                    i = skip_ws(b, i + 1);
                    if key == k {
                        break;
                    }
                    i = skip_ws(b, value_end(b, i));
                    if b.get(i) != Some(&b',') {
                        return None;
                    }
                    i = skip_ws(b, i + 1);
                }
            }
            Seg::Index(n) => {
                if b.get(i) != Some(&b'[') {
                    return None;
                }
                i = skip_ws(b, i + 1);
                for _ in 0..n {
                    i = skip_ws(b, value_end(b, i));
                    if b.get(i) != Some(&b',') {
                        return None;
                    }
                    i = skip_ws(b, i + 1);
                }
            }
        }
    }
    (i < b.len()).then_some(i)
}

/// A Java `long` as Hadoop's trace readers take one: a JSON integer, or a
/// string holding one (`Long.parseLong(value.toString())`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Long(pub i64);

impl<'de> de::Deserialize<'de> for Long {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Long, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Long;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer (or a string holding one)")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Long, E> {
                Ok(Long(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Long, E> {
                i64::try_from(v).map(Long).map_err(|_| {
                    E::custom(format!("{v} is beyond the largest integer, {}", i64::MAX))
                })
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Long, E> {
                v.parse::<i64>().map(Long).map_err(|_| {
                    E::custom(format!(
                        "expected an integer (or a string holding one), got \"{v}\""
                    ))
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// A name as Hadoop's trace readers take one: a JSON string, or a number
/// read as its text (they take `toString()` of the value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Text(pub String);

impl<'de> de::Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string (or a number)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Text, E> {
                Ok(Text(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Text, E> {
                Ok(Text(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Text, E> {
                Ok(Text(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Text, E> {
                Ok(Text(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

/// The Hadoop trace formats mrsched reads from JSON.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// Hadoop SLS's job trace (`--tracetype SLS`).
    Sls,
    /// Rumen's job trace (`LoggedJob` objects).
    Rumen,
}

/// Tell a Hadoop trace from its first record's keys: SLS records have
/// `job.tasks`, `job.start.ms` or `am.type`; Rumen's have `jobID`,
/// `mapTasks` or `submitTime`. `None` for anything else (mrsched's own
/// workload files among them).
pub fn detect(text: &str) -> Option<TraceFormat> {
    let text = text.trim_start_matches('\u{feff}');
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) == Some(&b'[') {
        i = skip_ws(b, i + 1);
    }
    if b.get(i) != Some(&b'{') {
        return None;
    }
    let first = &text[i..value_end(b, i)];
    // The keys of the first record; when it does not parse, the keys
    // written in it, so that its syntax error is reported by the trace
    // reader, with the record.
    let keys: Option<std::collections::HashMap<String, serde::de::IgnoredAny>> =
        serde_json::from_str(first).ok();
    let has = |k: &str| match &keys {
        Some(m) => m.contains_key(k),
        None => first.contains(&format!("\"{k}\"")),
    };
    if has("job.tasks") || has("job.start.ms") || has("am.type") {
        Some(TraceFormat::Sls)
    } else if has("jobID") || has("mapTasks") || has("submitTime") {
        Some(TraceFormat::Rumen)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrsched_model::Format;

    fn src(t: &str) -> Source {
        Source::new("t.json", t, Format::Json)
    }

    #[test]
    fn concatenated_objects_and_arrays_split_into_records() {
        let s = src("{\"a\": \"}{\"}\n  {\"b\": [1, {\"c\": 2}]}\n");
        let r = split(&s).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].text, "{\"a\": \"}{\"}");
        assert_eq!((r[1].line, r[1].column), (2, 3));
        let s = src("[ {\"a\": 1},\n {\"a\": 2} ]\n");
        let r = split(&s).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].text, "{\"a\": 2}");
    }

    #[test]
    fn garbage_and_empty_files_are_errors() {
        let e = split(&src("{\"a\": 1}\n\n oops")).unwrap_err().to_string();
        assert_eq!(
            e,
            "t.json:3:2: record 2: expected `{` opening a JSON object, found `oops`"
        );
        let e = split(&src("  \n")).unwrap_err().to_string();
        assert_eq!(e, "t.json: the trace has no jobs (no JSON object in it)");
        let e = split(&src("[{\"a\": 1} {\"a\": 2}]"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("t.json:1:11: expected `,` or `]` after record 1"),
            "{e}"
        );
    }

    #[test]
    fn values_are_located_by_path() {
        let text = "{\"x\": 1}\n{\"id\": \"j\",\n \"tasks\": [\n  {\"s\": 1},\n  {\"s\": 2, \"e\": 0}\n ]}";
        let s = src(text);
        let r = split(&s).unwrap();
        let path = [Seg::Key("tasks"), Seg::Index(1), Seg::Key("e")];
        assert_eq!(r[1].locate(&path), (5, 17));
        assert_eq!(path_string(&path), "tasks[1].e");
        assert_eq!(r[1].locate(&[Seg::Key("nope")]), (2, 1));
        let e = r[1].error(&s, Some("j"), &path, "ends before it starts");
        assert_eq!(
            e.to_string(),
            "t.json:5:17: record 2 (job `j`), tasks[1].e: ends before it starts"
        );
    }

    #[test]
    fn type_errors_name_record_line_and_field() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct J {
            id: String,
            t: Vec<Long>,
        }
        let s = src("{\"id\": \"a\", \"t\": []}\n{\"id\": \"b\",\n \"t\": [1, \"2\", \"soon\"]}");
        let r = split(&s).unwrap();
        let j: J = r[0].parse(&s, "id").unwrap();
        assert!(j.t.is_empty());
        let e = r[1].parse::<J>(&s, "id").unwrap_err().to_string();
        assert!(
            e.starts_with("t.json:3:") && e.contains("record 2 (job `b`), t[2]: expected an integer (or a string holding one), got \"soon\""),
            "{e}"
        );
    }

    #[test]
    fn formats_are_detected_from_the_first_record() {
        assert_eq!(detect("{\"job.tasks\": []}"), Some(TraceFormat::Sls));
        assert_eq!(detect("[{\"jobID\": \"x\"}]"), Some(TraceFormat::Rumen));
        assert_eq!(detect("{\"jobs\": []}"), None);
        assert_eq!(detect("[[jobs]]\nmaps = 1\n"), None);
        assert_eq!(
            detect("{\"jobID\": \"a\", \"mapTasks\": [}"),
            Some(TraceFormat::Rumen)
        );
    }
}
