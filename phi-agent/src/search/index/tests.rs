//! The ranking's parts, each on a small catalogue where it decides the order.

use super::parts::{Breadth, Feedback};
use super::*;
use crate::search::links::Links;

fn index(docs: &[(&str, &str)]) -> TextIndex {
    let mut builder = IndexBuilder::default();
    for (name, description) in docs {
        builder.add([(Field::Name, *name), (Field::Description, *description)]);
    }
    builder.build()
}

#[test]
fn the_named_tool_wins_over_ones_that_only_mention_its_words() {
    let index = index(&[
        ("delete_s3_object", "Delete an object from a bucket."),
        ("delete_file", "Delete a file from the disk."),
        (
            "read_file",
            "Read a file; the file must exist, a file is a file.",
        ),
    ]);
    let hits = index.search("delete file", 3, true, |_| true);
    assert_eq!(hits[0].0, 1);
    assert!(hits.iter().all(|(_, score)| *score > 0.0));
}

#[test]
fn the_best_hit_s_words_lift_its_siblings() {
    let docs = [
        (
            "send_money",
            "Send money to a recipient IBAN, with a subject and a date.",
        ),
        ("rent_car", "Rent a car by the day."),
        (
            "update_rent_payment",
            "Update the recipient IBAN, subject or date of the rent payment.",
        ),
    ];
    let order = |feedback: Option<Feedback>| {
        // Without synonyms, which reach `payment` from `money` on their own.
        let mut builder = IndexBuilder::with_parts(Parts {
            feedback,
            synonyms: false,
            ..Parts::default()
        });
        for (name, description) in docs {
            builder.add([(Field::Name, name), (Field::Description, description)]);
        }
        let index = builder.build();
        let hits = index.search("send money for the rent", 5, true, |_| true);
        hits.iter().map(|hit| hit.0).collect::<Vec<u32>>()
    };
    // Without feedback: both other tools meet the query only in `rent`, and the car, shorter
    // and half named by it, comes first.
    assert_eq!(order(None), [0, 1, 2]);
    // The best hit says `recipient`, `iban`, `subject` and `date`: so does the payment tool,
    // not the car.
    assert_eq!(order(Some(Feedback::default())), [0, 2, 1]);
    // Words the feedback adds never bring in a tool that meets none of the query's own.
    let mut builder = IndexBuilder::default();
    builder.add([
        (Field::Name, "send_money"),
        (Field::Description, "Send money to an IBAN."),
    ]);
    builder.add([
        (Field::Name, "validate_iban"),
        (Field::Description, "Check an IBAN."),
    ]);
    assert_eq!(
        builder
            .build()
            .search("send money", 5, true, |_| true)
            .len(),
        1
    );
}

#[test]
fn a_best_result_brings_in_the_tools_its_parameters_come_from() {
    let build = |links: Option<Links>| {
        let mut builder = IndexBuilder::with_parts(Parts {
            links,
            ..Parts::default()
        });
        builder.add([
            (Field::Name, "search_hotels"),
            (Field::Description, "Search hotels in a destination."),
            (Field::ParamName, "dest_id"),
            (
                Field::ParamDoc,
                "Retrieved from `api/v1/hotels/searchDestination` (Search Destination).",
            ),
        ]);
        builder.add([
            (Field::Name, "search_destination"),
            (Field::Description, "Find a place by its address or city."),
            (Field::ParamName, "query"),
        ]);
        builder.add([
            (Field::Name, "list_artist_albums"),
            (Field::Description, "An artist's albums."),
            (Field::ParamName, "artistId"),
            (Field::ParamDoc, "The artist."),
        ]);
        builder.add([
            // Names what `artistId` identifies, an artist, and takes no `artistId`.
            (Field::Name, "find_artist"),
            (Field::Description, "Look up a musician by name."),
            (Field::ParamName, "name"),
        ]);
        // Named only in prose: no link.
        builder.add([
            (Field::Name, "rate_room"),
            (Field::Description, "Rate a room of a hotel."),
            (Field::ParamName, "stars"),
            (
                Field::ParamDoc,
                "How many stars, as search destination sites show.",
            ),
        ]);
        builder.build()
    };
    let found = |index: &TextIndex, query: &str| -> Vec<u32> {
        index
            .search(query, 5, true, |_| true)
            .iter()
            .map(|hit| hit.0)
            .collect()
    };
    let off = build(None);
    let on = build(Some(Links::default()));
    // The request says nothing the lookups say.
    assert_eq!(found(&off, "hotels by the sea"), [0, 4]);
    assert_eq!(found(&on, "hotels by the sea"), [0, 1, 4]);
    assert_eq!(found(&off, "albums of Queen"), [2]);
    assert_eq!(found(&on, "albums of Queen"), [2, 3]);
    // What was linked: prose names no tool.
    assert_eq!(on.producers.of(0), [1]);
    assert_eq!(on.producers.of(2), [3]);
    assert_eq!(on.producers.of(4), [] as [u32; 0]);
    // Below the result that brought it in; not past a filter.
    let lifted = on.search("hotels by the sea", 5, true, |_| true);
    assert!(lifted[1].1 < lifted[0].1);
    assert_eq!(
        on.search("hotels by the sea", 5, true, |doc| doc != 1)
            .iter()
            .map(|hit| hit.0)
            .collect::<Vec<u32>>(),
        [0, 4]
    );
}

#[test]
fn synonyms_reach_other_words_and_filters_apply() {
    let index = index(&[
        ("delete_branch", "Delete a git branch."),
        ("create_branch", "Create a git branch."),
    ]);
    assert_eq!(index.search("remove branch", 1, true, |_| true)[0].0, 0);
    assert_eq!(
        index.search("remove branch", 5, true, |doc| doc == 1),
        [(
            1,
            index.search("remove branch", 5, true, |doc| doc == 1)[0].1
        )]
    );
    assert!(index.search("weather", 5, true, |_| true).is_empty());
    assert!(index.search("", 5, true, |_| true).is_empty());
}

#[test]
fn a_place_s_name_brings_in_its_kind_one_way() {
    let places = index(&[
        ("get_news", "Latest news headlines on a topic."),
        (
            "get_country_details",
            "Population, capital and statistics of a country, by its name.",
        ),
        ("get_city_weather", "Current weather in a city."),
    ]);
    let first = |query: &str| {
        places
            .search(query, 1, true, |_| true)
            .first()
            .map(|hit| hit.0)
    };
    // Neither request names its kind: Italy stands for `country`, Lisbon for `city`.
    assert_eq!(first("covid figures for Italy"), Some(1));
    assert_eq!(first("how is it in Lisbon"), Some(2));
    // The kind brings in no names.
    let trip = index(&[("italy_trip", "Book a trip to Italy.")]);
    assert!(trip.search("country", 5, true, |_| true).is_empty());
}

/// Three ways to find movies, and a tool for each other step of [`THREE_STEPS`].
fn movies_and_two_more() -> TextIndex {
    index(&[
        (
            "search_movies",
            "Search for movies by genre, rating and release year.",
        ),
        (
            "find_movies",
            "Find movies of a genre by rating and release year.",
        ),
        (
            "list_movies",
            "List the movies of a genre by rating and release year.",
        ),
        (
            "translate_text",
            "Translate a text from one language to another.",
        ),
        ("calculate_square", "Calculate the square of a number."),
    ])
}

/// A request of three steps, long enough for breadth.
const THREE_STEPS: &str = "Translate the text from English to Spanish, then calculate the square \
                           of 12, then search for movies of the genre Action with a rating of 7 \
                           released after 2000";

#[test]
fn the_first_results_answer_every_step_of_a_long_request() {
    let (index, request) = (movies_and_two_more(), THREE_STEPS);
    // Scores as a large catalogue gives them, where every tool matches some common words: the
    // three ways to find movies ahead of the other steps' tools, by little.
    let mut ranked = vec![(0, 1.0), (1, 0.99), (2, 0.98), (3, 0.97), (4, 0.96)];
    index.spread_query(request, &mut ranked, Breadth::default().weight);
    let order: Vec<u32> = ranked.iter().map(|&(doc, _)| doc).collect();
    // The first way to find movies keeps its place; the other steps' tools come before the
    // second and third, which answer nothing new.
    assert_eq!(order[0], 0, "{order:?}");
    assert_eq!(&order[3..], [1, 2], "{order:?}");
    // The scores are handed out again in the new order: still best first.
    let scores: Vec<f32> = ranked.iter().map(|&(_, score)| score).collect();
    assert_eq!(scores, [1.0, 0.99, 0.98, 0.97, 0.96]);
    // A short request is left as the ranking put it.
    let mut short = vec![(0, 1.0), (1, 0.99), (4, 0.5)];
    index.spread_query("square of a number", &mut short, Breadth::default().weight);
    assert_eq!(short, [(0, 1.0), (1, 0.99), (4, 0.5)]);
}

#[test]
fn breadth_reorders_only_the_finished_ranking() {
    let (index, request) = (movies_and_two_more(), THREE_STEPS);
    // The unfinished ranking (what a hybrid fuses) is best first by score alone; the finished
    // one holds the same tools.
    let unfinished = index.search(request, 5, false, |_| true);
    assert!(unfinished.windows(2).all(|pair| pair[0].1 >= pair[1].1));
    let finished = index.search(request, 5, true, |_| true);
    let mut a: Vec<u32> = unfinished.iter().map(|hit| hit.0).collect();
    let mut b: Vec<u32> = finished.iter().map(|hit| hit.0).collect();
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b);
    assert!(finished.windows(2).all(|pair| pair[0].1 >= pair[1].1));
}

#[test]
fn a_long_request_s_last_step_counts_every_word() {
    let index = index(&[
        (
            "generate_password",
            "Generate a password of a given length.",
        ),
        ("send_sms", "Send an SMS text message to a phone number."),
        (
            "convert_units",
            "Convert between units of length and weight.",
        ),
    ]);
    // A password step, then thirty words no tool has (they still take term numbers), then a
    // step the SMS tool answers in three words.
    let filler = (0..30)
        .map(|i| format!("word{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    let request =
        format!("generate a password of length 12, {filler}, then send an sms message with it");
    let hits = index.search(&request, 3, false, |_| true);
    let order: Vec<u32> = hits.iter().map(|hit| hit.0).collect();
    // The SMS tool meets three of the request's words, the password tool two: each word counts,
    // however late it comes. (When words past the 32nd counted as one, the password tool came
    // first.)
    assert_eq!(order[..2], [1, 0], "{order:?}");
}

/// A distinct word of letters only (identifier splitting would cut digits off), for `i`, that
/// starts with `first`.
fn word(first: char, i: usize) -> String {
    let mut word = String::from(first);
    let mut n = i;
    loop {
        word.push(char::from(b'a' + (n % 26) as u8));
        n /= 26;
        if n == 0 {
            return word;
        }
    }
}

#[test]
fn a_request_of_many_words_reads_each_once_in_linear_time() {
    let words: Vec<String> = (0..100).map(|i| word('z', i)).collect();
    let index = index(&[("many", &words.join(" ")), ("send_sms", "Send an SMS.")]);
    // Past the words told apart by scanning, a set tells them apart: each counted once.
    let (weighted, asked) = index.query_terms(&format!("{0} {0}", words.join(" ")));
    assert_eq!(asked, 100);
    assert_eq!(weighted.len(), 100);
    // A pasted document's worth of words the index does not know: read in linear time (half a
    // second in a debug build; comparing each word with those before it took 42 s).
    let pasted: Vec<String> = (0..100_000).map(|i| word('y', i)).collect();
    let started = std::time::Instant::now();
    assert!(
        index
            .search(&pasted.join(" "), 5, true, |_| true)
            .is_empty()
    );
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(20), "{took:?}");
}
