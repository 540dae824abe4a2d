//! Trust for project-level hooks: a record of the content hashes of a config and the scripts it names.
