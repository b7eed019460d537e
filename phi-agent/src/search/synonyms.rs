//! Words that often stand for one another in a request for a tool, so that "remove a branch"
//! reaches `delete_branch` and "where is my parcel" reaches `track_package`.
//!
//! A query term brings in the other members of its groups at a reduced weight (see
//! [`super::index`]); the tools' own words are never rewritten. The groups are general English
//! of software and everyday tasks, not the names of any particular tool set, and each English
//! word of [`super::chinese`] with its Chinese words.

use foldhash::HashMap;
use std::sync::OnceLock;

use super::tokenize::{Stemming, stem_as};

const GROUPS: &[&[&str]] = &[
    // verbs
    &[
        "delete", "remove", "erase", "drop", "discard", "purge", "destroy", "rid", "trash",
    ],
    &[
        "create", "make", "add", "new", "open", "setup", "insert", "register",
    ],
    &[
        "search", "find", "look", "lookup", "locate", "query", "seek",
    ],
    &[
        "list",
        "show",
        "display",
        "view",
        "see",
        "browse",
        "enumerate",
    ],
    &[
        "get", "fetch", "retrieve", "read", "obtain", "download", "check",
    ],
    &[
        "update", "change", "edit", "modify", "alter", "adjust", "set",
    ],
    &["send", "post", "mail", "deliver", "dispatch", "message"],
    &[
        "stop",
        "cancel",
        "halt",
        "end",
        "terminate",
        "shut",
        "abort",
        "kill",
    ],
    &["start", "launch", "run", "begin", "trigger", "kick", "boot"],
    &["undo", "revert", "rollback", "roll", "restore"],
    &["book", "reserve", "reservation", "booking"],
    &["buy", "purchase", "order"],
    &[
        "save", "store", "record", "keep", "persist", "put", "commit",
    ],
    &["upload", "push", "put"],
    &["move", "transfer", "relocate"],
    &["share", "grant", "permission", "access", "invite"],
    &["schedule", "plan", "arrange", "organize", "book"],
    &["mute", "silence", "snooze", "quiet"],
    &["finish", "complete", "done", "resolve", "solve"],
    &["track", "where", "status", "locate"],
    &["convert", "transform", "turn"],
    &["translate", "translation", "language"],
    &["answer", "reply", "respond"],
    &["switch", "turn", "toggle"],
    &["reduce", "smaller", "shrink", "resize", "compress"],
    &["summarize", "summary", "shorten", "tldr"],
    &["propose", "suggest", "request"],
    &["ask", "request", "apply"],
    &["forgot", "forget", "lost", "reset"],
    &["page", "alert", "notify", "notification", "wake"],
    &["sign", "login", "logon", "authenticate"],
    &["pay", "payment", "charge", "money", "funds", "cash"],
    &["refund", "reimburse", "repay", "chargeback"],
    &["bill", "invoice", "billing"],
    &["offer", "deal", "discount", "bargain"],
    &["similar", "related", "alike"],
    &["biography", "bio", "overview", "profile"],
    &["scale", "replica", "resize"],
    // nouns
    &["email", "mail", "inbox", "mailbox", "message"],
    &["event", "meeting", "appointment", "calendar", "invite"],
    &["file", "document", "doc"],
    &["folder", "directory", "dir"],
    &["image", "picture", "photo", "pic", "screenshot"],
    &["text", "word", "sentence", "paragraph", "writing"],
    &["light", "lamp", "bulb"],
    &["package", "parcel", "shipment", "delivery"],
    &["customer", "client", "buyer"],
    &[
        "user",
        "account",
        "member",
        "person",
        "people",
        "colleague",
        "coworker",
    ],
    &["employee", "staff", "worker", "hire", "colleague"],
    &["vacation", "holiday", "leave", "pto", "absence", "off"],
    &["password", "credential", "passphrase", "login", "secret"],
    &["coordinate", "latitude", "longitude", "gps", "lat", "lng"],
    &["weather", "rain", "snow", "sunny", "wind", "storm"],
    &[
        "temperature",
        "hot",
        "cold",
        "warm",
        "warmer",
        "cooler",
        "heat",
        "degree",
    ],
    &["forecast", "tomorrow", "weekend", "upcoming"],
    &["current", "now", "today", "latest", "live"],
    &["hotel", "stay", "lodging", "accommodation", "room"],
    &["flight", "fly", "plane", "airline"],
    &["directions", "route", "navigate", "way", "commute"],
    &["restaurant", "dinner", "lunch", "eat", "cuisine", "table"],
    &["stock", "share", "ticker", "equity", "trading"],
    &["price", "worth", "cost", "value", "quote", "trading"],
    &[
        "currency", "dollar", "euro", "yen", "pound", "gbp", "usd", "eur", "exchange",
    ],
    &[
        "language", "spanish", "french", "english", "german", "italian", "chinese", "japanese",
    ],
    &["instance", "vm", "virtual", "machine", "server", "ec2"],
    &["git", "version", "vcs", "repository", "repo"],
    &["log", "output", "print", "console", "stdout", "stderr"],
    &["incident", "outage", "down", "broken", "emergency"],
    &["thermostat", "heating", "heat", "warm", "warmer"],
    &["task", "todo", "chore", "item"],
    &["object", "item", "blob"],
    &["s3", "aws"],
    &["release", "deploy", "deployment", "version", "ship"],
    &["ticket", "issue", "bug", "case"],
    &["channel", "room", "team"],
    &["chat", "slack", "message"],
    &["video", "call", "zoom", "conference"],
    &["song", "music", "tune", "playlist"],
    &["pod", "container", "kubernetes", "k8s"],
    &["database", "db", "sql", "table"],
    &["row", "record", "entry", "line"],
    &["spreadsheet", "sheet", "excel", "cell"],
    &["home", "house", "apartment"],
    &["door", "lock", "entrance"],
    &["remind", "reminder", "alarm"],
    &["domain", "website", "site", "url", "host"],
    &["cost", "spend", "spent", "bill", "expense"],
    &["signup", "registration", "register", "join"],
];

/// The stemmed terms (stemmed by `stemming`) that stand in for `term`, itself left out.
pub(crate) fn synonyms(term: &str, stemming: Stemming) -> &'static [String] {
    static TABLES: [OnceLock<HashMap<String, Vec<String>>>; 2] = [OnceLock::new(), OnceLock::new()];
    let table = TABLES[stemming as usize].get_or_init(|| {
        let mut table: HashMap<String, Vec<String>> = HashMap::default();
        let bilingual = super::chinese::PAIRS.iter().map(|(english, chinese)| {
            std::iter::once(*english)
                .chain(chinese.iter().copied())
                .collect::<Vec<&str>>()
        });
        let groups = GROUPS.iter().map(|group| group.to_vec()).chain(bilingual);
        for group in groups {
            let stems: Vec<String> = group.iter().map(|word| stem_as(word, stemming)).collect();
            for one in &stems {
                for other in &stems {
                    link(&mut table, one, other);
                }
            }
        }
        // One way: a place's name stands for its kind, but a kind is not any one of its places.
        for (kind, names) in super::places::KINDS {
            let kind = stem_as(kind, stemming);
            for name in *names {
                link(&mut table, &stem_as(name, stemming), &kind);
            }
        }
        table
    });
    table.get(term).map_or(&[], Vec::as_slice)
}

/// Lets `to` stand in for `from`, once, and never a term for itself.
fn link(table: &mut HashMap<String, Vec<String>>, from: &str, to: &str) {
    if from == to {
        return;
    }
    let entry = table.entry(from.to_owned()).or_default();
    if !entry.iter().any(|term| term == to) {
        entry.push(to.to_owned());
    }
}
