//! Hadoop's XML files (allocation files, `capacity-scheduler.xml`) read
//! with located errors: one parse that turns a syntax error into a located
//! input error, and a line index, so that every reader names the line of
//! the element it complains about.

use mrsched_model::{InputError, InputErrors};

/// Byte offset where each line of a document starts: a node's line is a
/// binary search, where `Document::text_pos_at` rescans the text from its
/// start (quadratic over thousands of elements).
pub(crate) struct Lines(Vec<usize>);

impl Lines {
    /// The 1-based line a node starts on.
    pub(crate) fn of(&self, n: roxmltree::Node) -> usize {
        self.0.partition_point(|&s| s <= n.range().start)
    }
}

/// Parse `text` (from `file`): the document and its line index, or the
/// syntax error with its line and column.
pub(crate) fn parse<'t>(
    file: &str,
    text: &'t str,
) -> Result<(roxmltree::Document<'t>, Lines), InputErrors> {
    let doc = roxmltree::Document::parse(text).map_err(|e| {
        let pos = e.pos();
        InputErrors::from(InputError {
            file: file.to_string(),
            line: Some(pos.row as usize),
            column: Some(pos.col as usize),
            field: None,
            message: format!("not well-formed XML: {e}"),
        })
    })?;
    let lines = Lines(
        std::iter::once(0)
            .chain(doc.input_text().match_indices('\n').map(|(i, _)| i + 1))
            .collect(),
    );
    Ok((doc, lines))
}
