//! Strings during const evaluation: comparing them and assembling a message from pieces, which
//! `format!` cannot do in a `const fn`.

/// Whether `a` and `b` are equal (`==` on `str` is not a `const fn`).
pub(super) const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A message assembled during const evaluation, in a fixed buffer: pieces that would not fit
/// are left out whole.
pub struct ConstMessage {
    bytes: [u8; 512],
    len: usize,
}

impl ConstMessage {
    /// An empty message.
    pub(super) const fn new() -> Self {
        Self {
            bytes: [0; 512],
            len: 0,
        }
    }

    /// The message with `text` appended, if it fits.
    pub(super) const fn push(mut self, text: &str) -> Self {
        let text = text.as_bytes();
        let mut i = 0;
        // Only whole strings are copied, so the buffer always holds valid UTF-8.
        if self.len + text.len() <= self.bytes.len() {
            while i < text.len() {
                self.bytes[self.len + i] = text[i];
                i += 1;
            }
            self.len += text.len();
        }
        self
    }

    /// The text so far.
    pub const fn as_str(&self) -> &str {
        let (used, _) = self.bytes.split_at(self.len);
        match std::str::from_utf8(used) {
            Ok(text) => text,
            Err(_) => "two tools in `tools![]` share a name",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_compare_and_messages_assemble() {
        assert!(str_eq("search", "search"));
        assert!(!str_eq("search", "searc"));
        assert!(!str_eq("a", "b"));
        let message = ConstMessage::new().push("tools `").push("a").push("`");
        assert_eq!(message.as_str(), "tools `a`");
        let too_long = ConstMessage::new().push("x").push(&"y".repeat(512));
        assert_eq!(too_long.as_str(), "x");
    }
}
