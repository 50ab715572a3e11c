//! Errors about user input, with the place they come from.
//!
//! Every file a user gives mrsched (cluster, workload, scheduler config,
//! trace) is checked before anything runs. A problem is reported with the
//! file, the line when it can be found, the field path (`jobs[3].deadline_s`)
//! and what was expected, and all problems of a file are reported at once so
//! that one run shows everything to fix. Nothing here panics: bad input is a
//! value, not a crash.

use std::fmt;

/// One problem in one input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// The file (or a label such as `<builtin:fb-bm>`).
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// Field path such as `jobs[3].deadline_s`, when known.
    pub field: Option<String>,
    /// What is wrong and what was expected.
    pub message: String,
}

impl InputError {
    /// An error about a whole file (unreadable, unknown format ...).
    pub fn file(file: impl Into<String>, message: impl Into<String>) -> Self {
        InputError {
            file: file.into(),
            line: None,
            column: None,
            field: None,
            message: message.into(),
        }
    }

    /// An error about a field.
    pub fn field(
        file: impl Into<String>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        InputError {
            file: file.into(),
            line: None,
            column: None,
            field: Some(field.into()),
            message: message.into(),
        }
    }

    /// Set the line (builder style).
    pub fn at_line(mut self, line: Option<usize>) -> Self {
        self.line = line;
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// All the problems found in the inputs of one command.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct InputErrors(pub Vec<InputError>);

impl InputErrors {
    /// No errors yet.
    pub fn new() -> Self {
        InputErrors(Vec::new())
    }

    /// Record one more error.
    pub fn push(&mut self, e: InputError) {
        self.0.push(e);
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `Ok(v)` when empty, the errors otherwise.
    pub fn into_result<T>(self, v: T) -> Result<T, InputErrors> {
        if self.0.is_empty() {
            Ok(v)
        } else {
            Err(self)
        }
    }
}

impl From<InputError> for InputErrors {
    fn from(e: InputError) -> Self {
        InputErrors(vec![e])
    }
}

impl fmt::Display for InputErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 25;
        for (i, e) in self.0.iter().take(SHOWN).enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        if self.0.len() > SHOWN {
            write!(f, "\n... and {} more problems", self.0.len() - SHOWN)?;
        }
        Ok(())
    }
}

impl std::error::Error for InputErrors {}
impl std::error::Error for InputError {}
