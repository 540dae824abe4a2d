//! Long texts of an answer spilled to a file with a preview (placeholder, filled by the
//! command-executor work).
