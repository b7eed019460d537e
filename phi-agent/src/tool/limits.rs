//! [`ToolLimits`]: how a tool's calls are ordered and paced (a barrier, a bound on calls at
//! once, a rate), and [`Rate`], the rate written `"10/s"`.

use std::fmt;
use std::num::{NonZeroU32, NonZeroUsize};
use std::str::FromStr;
use std::time::Duration;

/// How a tool's calls are ordered and paced, beyond the agent's
/// [`max_parallel_tools`](crate::AgentConfig::max_parallel_tools). Default: no limit, so a
/// tool without limits runs exactly as before and its calls cost no check.
///
/// - [`sequential`](Self::sequential): a barrier inside one turn's batch of calls: the calls
///   before it finish before it starts, and the calls after it wait for it to finish.
/// - [`concurrency`](Self::concurrency): at most this many calls of the tool at once, per
///   session (per server when the tool is served over MCP); the others wait their turn.
/// - [`rate`](Self::rate): at most this many calls per period, per session (per server over
///   MCP); a call past it is refused at once with
///   [`AgentError::RateLimited`](crate::AgentError::RateLimited), which tells the model when
///   to retry. The session goes on.
///
/// Calls of tools that set none of these run in parallel with each other, bounded by
/// `max_parallel_tools` (read-only tools included: they never wait on each other).
/// `#[non_exhaustive]`: start from [`Default`] and use the setters.
///
/// ```
/// use std::num::NonZeroUsize;
/// use phi_agent::{Rate, ToolLimits, ToolOptions};
///
/// let limits = ToolLimits::default()
///     .with_concurrency(NonZeroUsize::new(2).unwrap())
///     .with_rate("10/s".parse::<Rate>().unwrap());
/// let options = ToolOptions::default().with_limits(limits);
/// assert_eq!(options.limits.concurrency.map(NonZeroUsize::get), Some(2));
/// assert!(!options.limits.sequential);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolLimits {
    /// Whether a call is a barrier in its turn's batch. With `#[phi_tool]` write `sequential`.
    pub sequential: bool,
    /// The most calls of the tool at once, per session (per server over MCP). With
    /// `#[phi_tool]` write `concurrency = n`.
    pub concurrency: Option<NonZeroUsize>,
    /// The most calls of the tool per period, per session (per server over MCP). With
    /// `#[phi_tool]` write `rate = "10/s"` (or `/m`, `/h`).
    pub rate: Option<Rate>,
}

impl ToolLimits {
    /// These limits with [`sequential`](Self::sequential) on.
    pub fn sequential(mut self) -> Self {
        self.sequential = true;
        self
    }

    /// These limits with at most `calls` calls at once.
    pub fn with_concurrency(mut self, calls: NonZeroUsize) -> Self {
        self.concurrency = Some(calls);
        self
    }

    /// These limits with `rate`.
    pub fn with_rate(mut self, rate: Rate) -> Self {
        self.rate = Some(rate);
        self
    }

    /// Whether calls must be admitted one by one (a bound on calls at once, or a rate): what
    /// the registry keeps per-session state for.
    pub(crate) fn admits(&self) -> bool {
        self.concurrency.is_some() || self.rate.is_some()
    }
}

/// A rate: at most [`calls`](Self::calls) calls in any window of [`per`](Self::per).
///
/// Written `"<calls>/<unit>"`, the unit `s`, `m` or `h` (`"10/s"`, `"100/m"`, `"1000/h"`).
/// The window slides: `"10/s"` admits 10 calls at once, and the 11th once a second has passed
/// since the first of them, never 11 within one second.
///
/// ```
/// use std::time::Duration;
/// use phi_agent::Rate;
///
/// let rate: Rate = "10/s".parse().unwrap();
/// assert_eq!((rate.calls(), rate.per()), (10, Duration::from_secs(1)));
/// assert_eq!(rate.to_string(), "10/s");
/// let error = "ten/s".parse::<Rate>().unwrap_err();
/// assert!(error.to_string().contains("\"10/s\""), "{error}");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rate {
    calls: NonZeroU32,
    unit: RateUnit,
}

/// The period of a [`Rate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum RateUnit {
    Second,
    Minute,
    Hour,
}

impl Rate {
    /// At most `calls` calls per second.
    pub fn per_second(calls: NonZeroU32) -> Self {
        Self {
            calls,
            unit: RateUnit::Second,
        }
    }

    /// At most `calls` calls per minute.
    pub fn per_minute(calls: NonZeroU32) -> Self {
        Self {
            calls,
            unit: RateUnit::Minute,
        }
    }

    /// At most `calls` calls per hour.
    pub fn per_hour(calls: NonZeroU32) -> Self {
        Self {
            calls,
            unit: RateUnit::Hour,
        }
    }

    /// The most calls in one window.
    pub fn calls(&self) -> u32 {
        self.calls.get()
    }

    /// The window.
    pub fn per(&self) -> Duration {
        Duration::from_secs(match self.unit {
            RateUnit::Second => 1,
            RateUnit::Minute => 60,
            RateUnit::Hour => 3_600,
        })
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = match self.unit {
            RateUnit::Second => "s",
            RateUnit::Minute => "m",
            RateUnit::Hour => "h",
        };
        write!(f, "{}/{unit}", self.calls)
    }
}

/// A rate written wrong; its message says how to write one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid rate `{0}`: write calls per unit as \"<calls>/<unit>\", calls a positive integer and the unit s, m or h (\"10/s\", \"100/m\", \"1000/h\")"
)]
pub struct InvalidRate(String);

impl FromStr for Rate {
    type Err = InvalidRate;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = || InvalidRate(text.to_string());
        let (calls, unit) = text.split_once('/').ok_or_else(invalid)?;
        let calls: NonZeroU32 = calls
            .trim()
            .replace('_', "")
            .parse()
            .map_err(|_| invalid())?;
        let unit = match unit.trim() {
            "s" | "sec" | "second" => RateUnit::Second,
            "m" | "min" | "minute" => RateUnit::Minute,
            "h" | "hour" => RateUnit::Hour,
            _ => return Err(invalid()),
        };
        Ok(Self { calls, unit })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse_in_every_unit() {
        let rate = |text: &str| text.parse::<Rate>().map(|rate| (rate.calls(), rate.per()));
        assert_eq!(rate("10/s"), Ok((10, Duration::from_secs(1))));
        assert_eq!(rate(" 100 / m "), Ok((100, Duration::from_secs(60))));
        assert_eq!(rate("1_000/h"), Ok((1_000, Duration::from_secs(3_600))));
        assert_eq!(rate("5/min"), Ok((5, Duration::from_secs(60))));
    }

    #[test]
    fn bad_rates_are_refused() {
        for text in [
            "", "10", "0/s", "-1/s", "10/d", "ten/s", "10/", "/s", "1/s/s",
        ] {
            assert!(text.parse::<Rate>().is_err(), "{text:?} was accepted");
        }
    }

    #[test]
    fn a_rate_displays_as_written() {
        for text in ["10/s", "3/m", "7/h"] {
            assert_eq!(text.parse::<Rate>().unwrap().to_string(), text);
        }
    }
}
