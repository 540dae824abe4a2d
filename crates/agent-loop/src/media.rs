//! The media store: files and bytes a tool (or a hook answering for one) hands back as
//! `media://<id>` references, resolved when they are delivered to the caller or shown to the model.

use std::{
    collections::HashMap,
    fmt, io,
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
};

/// The scheme of every reference the store hands out.
pub const MEDIA_SCHEME: &str = "media://";

/// One stored item, resolved.
#[derive(Clone, PartialEq, Eq)]
pub struct MediaItem {
    /// The `media://<id>` reference.
    pub reference: String,
    /// A file name for the user (the file's name, or the name given with the bytes).
    pub name: String,
    /// MIME type, guessed from the name when not given.
    pub mime: String,
    /// The content.
    pub bytes: Arc<[u8]>,
}

impl fmt::Debug for MediaItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MediaItem")
            .field("reference", &self.reference)
            .field("name", &self.name)
            .field("mime", &self.mime)
            .field("n_bytes", &self.bytes.len())
            .finish()
    }
}

impl MediaItem {
    /// Whether the model can be shown this item as an image.
    pub fn is_image(&self) -> bool {
        self.mime.starts_with("image/")
    }

    /// A `data:<mime>;base64,...` URL of the content (what an OpenAI `image_url` part carries).
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.mime, base64(&self.bytes))
    }
}

/// Why a reference could not be resolved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MediaError {
    /// The text is not a `media://` reference.
    #[error("`{reference}` is not a media reference; media references look like `media://<id>`")]
    NotAReference {
        /// The text as given.
        reference: String,
    },
    /// No item has this id (it was never stored, or it belongs to another store).
    #[error("unknown media reference `{reference}`; only references handed out by this session's media store resolve")]
    Unknown {
        /// The reference as given.
        reference: String,
    },
    /// The stored file could not be read.
    #[error("media `{reference}` refers to {}, which could not be read: {source}", path.display())]
    Read {
        /// The reference.
        reference: String,
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
}

#[derive(Debug, Clone)]
enum Stored {
    Bytes { name: String, mime: String, bytes: Arc<[u8]> },
    File { path: PathBuf, mime: String },
}

/// Hands out `media://<id>` references for files and bytes; clones share one store.
#[derive(Debug, Clone, Default)]
pub struct MediaStore {
    items: Arc<Mutex<HashMap<String, Stored>>>,
    next_id: Arc<AtomicU64>,
}

impl MediaStore {
    /// An empty store.
    pub fn new() -> Self {
        MediaStore::default()
    }

    fn insert(&self, stored: Stored) -> String {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let reference = format!("{MEDIA_SCHEME}{id}");
        self.items.lock().unwrap_or_else(|p| p.into_inner()).insert(reference.clone(), stored);
        reference
    }

    /// Stores `bytes` under `name` (`mime` guessed from the name when `None`).
    pub fn put_bytes(&self, name: impl Into<String>, mime: Option<&str>, bytes: impl Into<Arc<[u8]>>) -> String {
        let name = name.into();
        let mime = mime.map(str::to_owned).unwrap_or_else(|| guess_mime(Path::new(&name)).to_owned());
        self.insert(Stored::Bytes { name, mime, bytes: bytes.into() })
    }

    /// Stores a reference to the file at `path`; it is read when resolved. Fails when the file
    /// does not exist now.
    pub fn put_file(&self, path: impl AsRef<Path>) -> io::Result<String> {
        let path = path.as_ref().canonicalize()?;
        if !path.is_file() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not a file", path.display())));
        }
        let mime = guess_mime(&path).to_owned();
        Ok(self.insert(Stored::File { path, mime }))
    }

    /// Resolves a reference to its content.
    pub fn resolve(&self, reference: &str) -> Result<MediaItem, MediaError> {
        if !reference.starts_with(MEDIA_SCHEME) {
            return Err(MediaError::NotAReference { reference: reference.to_owned() });
        }
        let stored = self.items.lock().unwrap_or_else(|p| p.into_inner()).get(reference).cloned();
        match stored {
            None => Err(MediaError::Unknown { reference: reference.to_owned() }),
            Some(Stored::Bytes { name, mime, bytes }) => {
                Ok(MediaItem { reference: reference.to_owned(), name, mime, bytes })
            }
            Some(Stored::File { path, mime }) => {
                let bytes = std::fs::read(&path).map_err(|source| MediaError::Read {
                    reference: reference.to_owned(),
                    path: path.clone(),
                    source,
                })?;
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                Ok(MediaItem { reference: reference.to_owned(), name, mime, bytes: bytes.into() })
            }
        }
    }

    /// How many items are stored.
    pub fn len(&self) -> usize {
        self.items.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A MIME type from a file extension; `application/octet-stream` when unknown.
pub fn guess_mime(path: &Path) -> &'static str {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "txt" | "md" | "log" => "text/plain",
        "json" => "application/json",
        "csv" => "text/csv",
        "pdf" => "application/pdf",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        _ => "application/octet-stream",
    }
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        out.push(TABLE[(n >> 18) as usize & 63] as char);
        out.push(TABLE[(n >> 12) as usize & 63] as char);
        out.push(if chunk.len() > 1 { TABLE[(n >> 6) as usize & 63] as char } else { '=' });
        out.push(if chunk.len() > 2 { TABLE[n as usize & 63] as char } else { '=' });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (input, expected) in
            [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("foobar", "Zm9vYmFy")]
        {
            assert_eq!(base64(input.as_bytes()), expected);
        }
    }

    #[test]
    fn references_resolve_and_unknown_ones_are_errors() {
        let store = MediaStore::new();
        let reference = store.put_bytes("chart.png", None, b"PNG".to_vec());
        let item = store.resolve(&reference).unwrap();
        assert_eq!(item.mime, "image/png");
        assert_eq!(item.data_url(), "data:image/png;base64,UE5H");
        assert!(matches!(store.resolve("media://999"), Err(MediaError::Unknown { .. })));
        assert!(matches!(store.resolve("/etc/passwd"), Err(MediaError::NotAReference { .. })));
    }
}
