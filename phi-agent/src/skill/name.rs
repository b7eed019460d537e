//! The naming rules of the Agent Skills format, which MCP's skills extension (SEP-2640) keeps:
//! a name is what the model types into `load_skill` and what a folder is called, so it is
//! short, lowercase and portable.

use super::error::SkillError;

/// The most characters a skill's name may have.
pub const MAX_SKILL_NAME_LEN: usize = 64;

/// The most characters a skill's description may have.
pub const MAX_SKILL_DESCRIPTION_LEN: usize = 1024;

/// Checks `name` against the format's rule: 1 to 64 characters from `a-z`, `0-9` and `-`, no
/// hyphen first or last, no two hyphens in a row.
///
/// ```
/// use phi_agent::skill::validate_skill_name;
///
/// assert!(validate_skill_name("pdf-forms").is_ok());
/// assert!(validate_skill_name("PDF").is_err());
/// assert!(validate_skill_name("a--b").is_err());
/// ```
pub fn validate_skill_name(name: &str) -> Result<(), SkillError> {
    let reason = if name.is_empty() {
        Some("it is empty")
    } else if name.chars().count() > MAX_SKILL_NAME_LEN {
        Some("it is longer than 64 characters")
    } else if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        Some("it has a character other than `a-z`, `0-9` and `-`")
    } else if name.starts_with('-') || name.ends_with('-') {
        Some("it starts or ends with a hyphen")
    } else if name.contains("--") {
        Some("it has two hyphens in a row")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(SkillError::InvalidName {
            name: name.to_string(),
            reason,
        }),
        None => Ok(()),
    }
}

/// Checks that `description` is neither blank nor longer than
/// [`MAX_SKILL_DESCRIPTION_LEN`] characters.
pub(super) fn check_description(name: &str, description: &str) -> Result<(), SkillError> {
    let reason = if description.trim().is_empty() {
        "an empty description"
    } else if description.chars().count() > MAX_SKILL_DESCRIPTION_LEN {
        "a description longer than the format allows"
    } else {
        return Ok(());
    };
    Err(SkillError::InvalidDescription {
        name: name.to_string(),
        reason,
        max: MAX_SKILL_DESCRIPTION_LEN,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_format() {
        for good in ["a", "pdf-forms", "v2", &"x".repeat(64)] {
            assert!(validate_skill_name(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "Pdf",
            "pdf_forms",
            "-pdf",
            "pdf-",
            "a--b",
            &"x".repeat(65),
            "é",
        ] {
            assert!(validate_skill_name(bad).is_err(), "{bad}");
        }
        let error = validate_skill_name("a--b").unwrap_err().to_string();
        assert!(error.contains("two hyphens"), "{error}");
    }

    #[test]
    fn descriptions_are_neither_blank_nor_too_long() {
        assert!(check_description("a", "Fills PDF forms.").is_ok());
        assert!(check_description("a", "  ").is_err());
        assert!(check_description("a", &"x".repeat(1025)).is_err());
    }
}
