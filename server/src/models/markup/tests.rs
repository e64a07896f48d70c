//! The markup parsers' tests: every format, at every split of the input.

use super::*;
use serde_json::json;

fn tools() -> Vec<Value> {
    vec![
        json!({"type": "function", "function": {
            "name": "search",
            "description": "Search the web",
            "parameters": {"type": "object", "properties": {
                "query": {"type": "string"},
                "options": {"type": "array", "items": {"type": "string"}},
                "limit": {"type": "integer"},
                "weight": {"type": "number"},
                "exact": {"type": "boolean"},
                "filters": {"type": "object"},
                "note": {"type": ["string", "null"]}
            }, "required": ["query"]}
        }}),
        json!({"type": "function", "function": {
            "name": "read_file",
            "parameters": {"type": "object", "properties": {
                "path": {"type": "string"},
                "lines": {"type": "array", "items": {"type": "integer"}}
            }}
        }}),
        json!({"type": "function", "function": {"name": "get_time"}}),
    ]
}

#[derive(Debug, PartialEq)]
struct Outcome {
    text: String,
    calls: Vec<ParsedCall>,
    malformed: Vec<String>,
    /// Events with consecutive texts merged.
    events: Vec<MarkupEvent>,
}

fn collect(events: Vec<MarkupEvent>) -> Outcome {
    let mut outcome = Outcome {
        text: String::new(),
        calls: Vec::new(),
        malformed: Vec::new(),
        events: Vec::new(),
    };
    for event in events {
        match &event {
            MarkupEvent::Text(t) => {
                assert!(!t.is_empty(), "empty text event");
                outcome.text.push_str(t);
            }
            MarkupEvent::Call(c) => {
                assert!(c.arguments.is_object(), "arguments not an object: {c:?}");
                outcome.calls.push(c.clone());
            }
            MarkupEvent::Malformed(m) => outcome.malformed.push(m.clone()),
        }
        match (outcome.events.last_mut(), event) {
            (Some(MarkupEvent::Text(last)), MarkupEvent::Text(t)) => last.push_str(&t),
            (_, event) => outcome.events.push(event),
        }
    }
    outcome
}

fn run_chunks(format: MarkupFormat, chunks: &[&str]) -> (Vec<MarkupEvent>, Outcome) {
    let mut parser = MarkupParser::new(format, &tools());
    let mut all = Vec::new();
    for chunk in chunks {
        all.extend(parser.push(chunk));
    }
    all.extend(parser.finish());
    let outcome = collect(all.clone());
    (all, outcome)
}

fn run(format: MarkupFormat, input: &str) -> Outcome {
    run_chunks(format, &[input]).1
}

fn call(name: &str, arguments: Value) -> ParsedCall {
    ParsedCall {
        name: name.to_string(),
        arguments,
    }
}

const ALWAYS_FORBIDDEN: [&str; 3] = ["<tool_call", "</tool_call>", "<function="];

fn assert_clean_text(events: &[MarkupEvent], forbidden: &[&str], context: &str) {
    let mut all_text = String::new();
    for event in events {
        if let MarkupEvent::Text(t) = event {
            all_text.push_str(t);
            for f in ALWAYS_FORBIDDEN.iter().chain(forbidden) {
                assert!(!t.contains(f), "{context}: text event {t:?} contains {f:?}");
            }
        }
    }
    for f in ALWAYS_FORBIDDEN.iter().chain(forbidden) {
        assert!(
            !all_text.contains(f),
            "{context}: text {all_text:?} contains {f:?}"
        );
    }
}

/// Checks the unsplit result, then every two-chunk split and the
/// one-char-at-a-time feeding against it.
fn check_splits(
    format: MarkupFormat,
    input: &str,
    text: &str,
    calls: &[ParsedCall],
    forbidden: &[&str],
) {
    let (events, whole) = run_chunks(format, &[input]);
    assert_eq!(whole.text, text, "text of {input:?}");
    assert_eq!(whole.calls, calls, "calls of {input:?}");
    assert!(whole.malformed.is_empty(), "malformed in {input:?}");
    assert_clean_text(&events, forbidden, input);
    for (i, _) in input.char_indices().skip(1) {
        let (events, split) = run_chunks(format, &[&input[..i], &input[i..]]);
        assert_eq!(split, whole, "split of {input:?} at {i}");
        assert_clean_text(&events, forbidden, &format!("{input:?} split at {i}"));
    }
    let chars: Vec<String> = input.chars().map(String::from).collect();
    let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
    let (events, by_char) = run_chunks(format, &chars);
    assert_eq!(by_char, whole, "char by char {input:?}");
    assert_clean_text(&events, forbidden, &format!("{input:?} char by char"));
}

const CALL_JSON: [&str; 2] = ["\"name\"", "\"arguments\""];

// --- hermes -------------------------------------------------------------

#[test]
fn hermes_tag_call() {
    let out = run(
            MarkupFormat::Hermes,
            "Let me check.\n<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"rust\", \"limit\": 3}}\n</tool_call>",
        );
    assert_eq!(out.text, "Let me check.\n");
    assert_eq!(
        out.calls,
        vec![call("search", json!({"query": "rust", "limit": 3}))]
    );
    assert!(out.malformed.is_empty());
}

#[test]
fn echoed_tool_response_tags_are_dropped_at_any_split() {
    for format in [MarkupFormat::Hermes, MarkupFormat::QwenXml] {
        check_splits(
            format,
            "<tool_response>I'll remind you at 10:05.</tool_response> Done.",
            "I'll remind you at 10:05. Done.",
            &[],
            &["<tool_", "response>"],
        );
    }
    // Something that only starts like the tag stays text.
    check_splits(
        MarkupFormat::Hermes,
        "a <tool_resp> b",
        "a <tool_resp> b",
        &[],
        &[],
    );
}

#[test]
fn hermes_parameters_synonym_and_string_arguments() {
    let out = run(
            MarkupFormat::Hermes,
            "<tool_call>{\"name\": \"search\", \"parameters\": {\"query\": \"a\"}}</tool_call>\
             <tool_call>{\"name\": \"search\", \"arguments\": \"{\\\"query\\\": \\\"b\\\"}\"}</tool_call>",
        );
    assert_eq!(out.text, "");
    assert_eq!(
        out.calls,
        vec![
            call("search", json!({"query": "a"})),
            call("search", json!({"query": "b"}))
        ]
    );
}

#[test]
fn hermes_tag_accepts_unknown_name_and_missing_arguments() {
    let out = run(
        MarkupFormat::Hermes,
        "<tool_call>{\"name\": \"other_tool\"}</tool_call>",
    );
    assert_eq!(out.calls, vec![call("other_tool", json!({}))]);
    assert_eq!(out.text, "");
}

#[test]
fn hermes_several_calls_in_one_tag() {
    let out = run(
            MarkupFormat::Hermes,
            "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"a\"}}\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>",
        );
    assert_eq!(
        out.calls,
        vec![
            call("search", json!({"query": "a"})),
            call("get_time", json!({}))
        ]
    );
}

#[test]
fn bare_json_call() {
    let out = run(
        MarkupFormat::Hermes,
        "{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}",
    );
    assert_eq!(out.calls, vec![call("search", json!({"query": "x"}))]);
    assert_eq!(out.text, "");
}

#[test]
fn bare_json_variants() {
    let cases = [
        "```json\n{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}\n```",
        "```\n{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}\n```",
        "{{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}}",
        "{{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}",
        "{\"name\": \"search\", \"parameters\": {\"query\": \"x\"}}",
        "{\"arguments\": {\"query\": \"x\"}, \"name\": \"search\"}",
        "{\"name\": \"search\", \"arguments\": \"{\\\"query\\\": \\\"x\\\"}\"}",
    ];
    for input in cases {
        let out = run(MarkupFormat::Hermes, input);
        assert_eq!(
            out.calls,
            vec![call("search", json!({"query": "x"}))],
            "{input}"
        );
        assert_eq!(out.text, "", "{input}");
        assert!(out.malformed.is_empty(), "{input}");
    }
}

#[test]
fn bare_json_without_arguments_is_empty_object() {
    let out = run(MarkupFormat::Hermes, "{\"name\": \"get_time\"}");
    assert_eq!(out.calls, vec![call("get_time", json!({}))]);
}

#[test]
fn bare_json_raw_newline_in_string() {
    let out = run(
        MarkupFormat::Hermes,
        "{\"name\": \"search\", \"arguments\": {\"query\": \"two\nlines\"}}",
    );
    assert_eq!(
        out.calls,
        vec![call("search", json!({"query": "two\nlines"}))]
    );
}

#[test]
fn several_bare_calls() {
    let out = run(
            MarkupFormat::Hermes,
            "I will do two things.\n{\"name\": \"search\", \"arguments\": {\"query\": \"a\"}}\n\
             {\"name\": \"read_file\", \"arguments\": {\"path\": \"/x\"}}{\"name\": \"get_time\"}\n",
        );
    assert_eq!(out.text, "I will do two things.\n");
    assert_eq!(
        out.calls,
        vec![
            call("search", json!({"query": "a"})),
            call("read_file", json!({"path": "/x"})),
            call("get_time", json!({}))
        ]
    );
}

#[test]
fn ordinary_json_is_text() {
    let cases = [
        "Here: {\"a\": 1} done",
        "{\"name\": \"unknown_tool\", \"arguments\": {\"q\": 1}}",
        "{\"name\": \"search\", \"arguments\": 5}",
        "{\"name\": \"search\", \"arguments\": {}, \"extra\": true}",
        "{\"name\": \"search\", \"arguments\": \"not json\"}",
        "{\"name\": \"sear\"}",
        "{}",
        "```json\n{\"a\": 1}\n```",
        "{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}",
    ];
    for input in cases {
        let out = run(MarkupFormat::Hermes, input);
        assert_eq!(out.text, input);
        assert!(out.calls.is_empty(), "{input}");
        assert!(out.malformed.is_empty(), "{input}");
    }
}

#[test]
fn code_blocks_are_left_alone() {
    let input =
        "```python\nx = {\"name\": \"search\", \"arguments\": {}}\nprint(x)\n```\nDone {ok}";
    let out = run(MarkupFormat::Hermes, input);
    assert_eq!(out.text, input);
    assert!(out.calls.is_empty());
    // A closing fence followed by a call does not swallow the fence.
    let input = "```python\n{\"a\": 1}\n{\"name\": \"get_time\"}\n```";
    let out = run(MarkupFormat::Hermes, input);
    assert_eq!(out.text, input);
    assert!(out.calls.is_empty());
    // A fence of any language directly holding a call is markup.
    let out = run(
        MarkupFormat::Hermes,
        "```tool_code\n{\"name\": \"get_time\"}\n```",
    );
    assert_eq!(out.text, "");
    assert_eq!(out.calls, vec![call("get_time", json!({}))]);
    let input = "```\ncode\n```\n{\"name\": \"get_time\"}";
    let out = run(MarkupFormat::Hermes, input);
    assert_eq!(out.text, "```\ncode\n```\n");
    assert_eq!(out.calls, vec![call("get_time", json!({}))]);
}

#[test]
fn fenced_tool_call_tag_drops_the_fence() {
    let out = run(
        MarkupFormat::Hermes,
        "Ok.\n```\n<tool_call>{\"name\": \"get_time\"}</tool_call>\n```\nBye",
    );
    assert_eq!(out.text, "Ok.\n\nBye");
    assert_eq!(out.calls, vec![call("get_time", json!({}))]);
}

#[test]
fn stray_closing_tag_is_dropped() {
    let out = run(
        MarkupFormat::Hermes,
        "{\"name\": \"get_time\"}\n</tool_call>",
    );
    assert_eq!(out.text, "");
    assert_eq!(out.calls, vec![call("get_time", json!({}))]);
}

#[test]
fn unclosed_tag_at_end_still_yields_the_call() {
    let out = run(
        MarkupFormat::Hermes,
        "Searching.<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}\n",
    );
    assert_eq!(out.text, "Searching.");
    assert_eq!(out.calls, vec![call("search", json!({"query": "x"}))]);
    // Cut inside the closing tag, and cut before the last braces.
    let out = run(
        MarkupFormat::Hermes,
        "<tool_call>{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}</tool_",
    );
    assert_eq!(out.calls, vec![call("search", json!({"query": "x"}))]);
    let out = run(
        MarkupFormat::Hermes,
        "<tool_call>{\"name\": \"search\", \"arguments\": {\"query\": \"x\"",
    );
    assert_eq!(out.calls, vec![call("search", json!({"query": "x"}))]);
    assert_eq!(out.text, "");
}

#[test]
fn malformed_tag_yields_malformed_and_no_text() {
    for format in [MarkupFormat::Hermes, MarkupFormat::QwenXml] {
        let out = run(format, "Hi <tool_call>{\"name\": oops}</tool_call>");
        assert_eq!(out.text, "Hi ");
        assert!(out.calls.is_empty());
        assert_eq!(out.malformed, vec!["{\"name\": oops}".to_string()]);

        let out = run(format, "<tool_call>just words</tool_call>");
        assert_eq!(out.text, "");
        assert_eq!(out.malformed, vec!["just words".to_string()]);

        // Unclosed and unparsable at the end of the stream.
        let out = run(format, "<tool_call>\n{{{ nope");
        assert_eq!(out.text, "");
        assert_eq!(out.malformed, vec!["\n{{{ nope".to_string()]);

        let out = run(format, "<tool_call><function=search</tool_call>");
        assert_eq!(out.text, "");
        assert_eq!(out.malformed.len(), 1);
    }
}

#[test]
fn plain_text_is_streamed_before_finish() {
    for format in [MarkupFormat::Hermes, MarkupFormat::QwenXml] {
        let mut parser = MarkupParser::new(format, &tools());
        let mut text = String::new();
        for chunk in ["Hello", " there,", " how are", " you"] {
            for event in parser.push(chunk) {
                match event {
                    MarkupEvent::Text(t) => text.push_str(&t),
                    other => panic!("unexpected {other:?}"),
                }
            }
        }
        assert_eq!(text, "Hello there, how are you");
        assert!(parser.finish().is_empty());
    }
}

#[test]
fn only_a_possible_markup_prefix_is_held_back() {
    let mut parser = MarkupParser::new(MarkupFormat::Hermes, &tools());
    let out = collect(parser.push("Sure <tool"));
    assert_eq!(out.text, "Sure ");
    let out = collect(parser.push("box> is fine, a {b"));
    assert_eq!(out.text, "<toolbox> is fine, a {b");
    let out = collect(parser.push(" and {\"name\": \"sea"));
    assert_eq!(out.text, " and ");
    let out = collect(parser.push("l\"} ok"));
    assert_eq!(out.text, "{\"name\": \"seal\"} ok");
    let out = collect(parser.push(" ``"));
    assert_eq!(out.text, " ");
    let out = collect(parser.finish());
    assert_eq!(out.text, "``");
}

#[test]
fn held_text_is_flushed_at_finish() {
    let out = run(MarkupFormat::Hermes, "a <tool_ca");
    assert_eq!(out.text, "a <tool_ca");
    let out = run(
        MarkupFormat::Hermes,
        "value {\"name\": \"search\", \"arguments\": {\"q",
    );
    assert_eq!(out.text, "value {\"name\": \"search\", \"arguments\": {\"q");
    assert!(out.calls.is_empty());
    let out = run(MarkupFormat::QwenXml, "x <functio");
    assert_eq!(out.text, "x <functio");
}

// --- qwen-xml -----------------------------------------------------------

const QWEN_CALL: &str = "I'll search.\n<tool_call>\n<function=search>\n<parameter=query>\n  rust  async \n</parameter>\n\
        <parameter=limit>\n10\n</parameter>\n<parameter=weight>\n0.5\n</parameter>\n\
        <parameter=exact>\nTRUE\n</parameter>\n<parameter=filters>\n{\"lang\": \"en\"}\n</parameter>\n\
        <parameter=options>\n[\"a\", \"b\"]\n</parameter>\n<parameter=extra>\n[1, 2]\n</parameter>\n\
        <parameter=comment>\nhello there\n</parameter>\n</function>\n</tool_call>\nDone.";

#[test]
fn qwen_xml_call_typed_by_schema() {
    let out = run(MarkupFormat::QwenXml, QWEN_CALL);
    assert_eq!(out.text, "I'll search.\n\nDone.");
    assert_eq!(
        out.calls,
        vec![call(
            "search",
            json!({
                "query": "  rust  async ",
                "limit": 10,
                "weight": 0.5,
                "exact": true,
                "filters": {"lang": "en"},
                "options": ["a", "b"],
                "extra": [1, 2],
                "comment": "hello there"
            })
        )]
    );
}

#[test]
fn qwen_xml_string_is_never_parsed() {
    let out = run(
            MarkupFormat::QwenXml,
            "<tool_call><function=search><parameter=query>123</parameter><parameter=note>true</parameter></function></tool_call>",
        );
    assert_eq!(
        out.calls,
        vec![call("search", json!({"query": "123", "note": "true"}))]
    );
}

#[test]
fn qwen_xml_multiline_value_and_several_functions() {
    let out = run(
            MarkupFormat::QwenXml,
            "<tool_call>\n<function=search>\n<parameter=query>\nline one\nline two\n</parameter>\n</function>\n\
             <function=get_time>\n</function>\n</tool_call>",
        );
    assert_eq!(
        out.calls,
        vec![
            call("search", json!({"query": "line one\nline two"})),
            call("get_time", json!({}))
        ]
    );
}

#[test]
fn qwen_xml_unclosed_at_end() {
    let out = run(
            MarkupFormat::QwenXml,
            "<tool_call>\n<function=search>\n<parameter=query>\nrust\n</parameter>\n<parameter=limit>\n5\n",
        );
    assert_eq!(out.text, "");
    assert_eq!(
        out.calls,
        vec![call("search", json!({"query": "rust", "limit": 5}))]
    );
    let out = run(
        MarkupFormat::QwenXml,
        "<tool_call>\n<function=search>\n<parameter=query>\nrust\n</param",
    );
    assert_eq!(out.calls, vec![call("search", json!({"query": "rust"}))]);
}

#[test]
fn qwen_xml_bare_function_block() {
    let out = run(
            MarkupFormat::QwenXml,
            "Checking.\n<function=read_file>\n<parameter=path>\n/etc/hosts\n</parameter>\n</function>\n</tool_call>",
        );
    assert_eq!(out.text, "Checking.\n");
    assert_eq!(
        out.calls,
        vec![call("read_file", json!({"path": "/etc/hosts"}))]
    );
}

#[test]
fn tag_content_format_is_sniffed() {
    let out = run(
        MarkupFormat::QwenXml,
        "<tool_call>{\"name\": \"search\", \"arguments\": {\"query\": \"q\"}}</tool_call>",
    );
    assert_eq!(out.calls, vec![call("search", json!({"query": "q"}))]);
    let out = run(
        MarkupFormat::Hermes,
        "<tool_call><function=search><parameter=limit>4</parameter></function></tool_call>",
    );
    assert_eq!(out.calls, vec![call("search", json!({"limit": 4}))]);
}

#[test]
fn qwen_xml_does_not_take_bare_json() {
    let input = "{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}";
    let out = run(MarkupFormat::QwenXml, input);
    assert_eq!(out.text, input);
    assert!(out.calls.is_empty());
}

// --- type_parameter -----------------------------------------------------

#[test]
fn type_parameter_scalars() {
    let s = |t: &str| json!({ "type": t });
    assert_eq!(
        type_parameter(Some(&s("string")), "\n 42 \n"),
        json!(" 42 ")
    );
    assert_eq!(type_parameter(Some(&s("string")), " x "), json!("x"));
    assert_eq!(
        type_parameter(Some(&s("string")), "\n\nx\n\n"),
        json!("\nx\n")
    );
    assert_eq!(type_parameter(Some(&s("integer")), " 42 "), json!(42));
    assert_eq!(type_parameter(Some(&s("integer")), "-7"), json!(-7));
    assert_eq!(type_parameter(Some(&s("integer")), "3.0"), json!(3));
    assert_eq!(type_parameter(Some(&s("integer")), "many"), json!("many"));
    assert_eq!(type_parameter(Some(&s("integer")), "2.5"), json!("2.5"));
    assert_eq!(type_parameter(Some(&s("number")), "2.5"), json!(2.5));
    assert_eq!(type_parameter(Some(&s("number")), "1e3"), json!(1000.0));
    assert_eq!(type_parameter(Some(&s("number")), "12"), json!(12));
    assert_eq!(type_parameter(Some(&s("number")), "nan"), json!("nan"));
    assert_eq!(type_parameter(Some(&s("boolean")), "True"), json!(true));
    assert_eq!(type_parameter(Some(&s("boolean")), "FALSE\n"), json!(false));
    assert_eq!(type_parameter(Some(&s("boolean")), "yes"), json!("yes"));
    assert_eq!(
        type_parameter(Some(&s("object")), "{\"a\": [1]}"),
        json!({"a": [1]})
    );
    assert_eq!(type_parameter(Some(&s("object")), "{oops"), json!("{oops"));
    assert_eq!(
        type_parameter(Some(&json!({"type": ["null", "integer"]})), "5"),
        json!(5)
    );
}

#[test]
fn type_parameter_unknown_tries_json() {
    assert_eq!(type_parameter(None, "12"), json!(12));
    assert_eq!(type_parameter(None, "{\"a\": true}"), json!({"a": true}));
    assert_eq!(
        type_parameter(None, "\nplain words\n"),
        json!("plain words")
    );
    assert_eq!(type_parameter(Some(&json!({})), "null"), json!(null));
}

#[test]
fn type_parameter_arrays() {
    let strings = json!({"type": "array", "items": {"type": "string"}});
    let a = Some(&strings);
    assert_eq!(type_parameter(a, "[\"x\", \"y\"]"), json!(["x", "y"]));
    assert_eq!(type_parameter(a, "\nx\ny\n\n z \n"), json!(["x", "y", "z"]));
    assert_eq!(
        type_parameter(a, "- first item\n* second, with comma\n3. third\n10) tenth"),
        json!(["first item", "second, with comma", "third", "tenth"])
    );
    assert_eq!(type_parameter(a, "x, y ,, z"), json!(["x", "y", "z"]));
    assert_eq!(type_parameter(a, "single"), json!(["single"]));
    assert_eq!(type_parameter(a, "[x, y]"), json!(["x", "y"]));
    assert_eq!(type_parameter(a, "\"x\", \"y\""), json!(["x", "y"]));
    assert_eq!(type_parameter(a, "\n\n"), json!([]));
    let numbers = json!({"type": "array", "items": {"type": "integer"}});
    assert_eq!(type_parameter(Some(&numbers), "1, 2, 3"), json!([1, 2, 3]));
    let untyped = json!({"type": "array"});
    assert_eq!(type_parameter(Some(&untyped), "1, b"), json!(["1", "b"]));
}

// --- chunk splits -------------------------------------------------------

#[test]
fn splits_hermes_tag_with_text_around() {
    check_splits(
            MarkupFormat::Hermes,
            "Let me look. <tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"ünï {x} <y>\"}}\n</tool_call>\nFound it: a < b.",
            "Let me look. \nFound it: a < b.",
            &[call("search", json!({"query": "ünï {x} <y>"}))],
            &CALL_JSON,
        );
}

#[test]
fn splits_fenced_bare_json() {
    check_splits(
        MarkupFormat::Hermes,
        "Sure:\n```json\n{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}\n```\nok",
        "Sure:\n\nok",
        &[call("search", json!({"query": "x"}))],
        &["```", "json", "\"name\"", "\"arguments\""],
    );
    check_splits(
            MarkupFormat::Hermes,
            "```\n{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}\n{\"name\": \"get_time\"}\n```",
            "",
            &[
                call("search", json!({"query": "x"})),
                call("get_time", json!({})),
            ],
            &["```", "\"name\""],
        );
}

#[test]
fn splits_doubled_brace() {
    check_splits(
        MarkupFormat::Hermes,
        "{{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}} then text",
        " then text",
        &[call("search", json!({"query": "x"}))],
        &["{", "}", "\"name\""],
    );
    check_splits(
        MarkupFormat::Hermes,
        "{{\"name\": \"get_time\", \"arguments\": {}}\nok",
        "\nok",
        &[call("get_time", json!({}))],
        &["{", "}", "\"name\""],
    );
}

#[test]
fn splits_bare_calls_on_lines() {
    check_splits(
            MarkupFormat::Hermes,
            "Two calls:\n{\"name\": \"search\", \"parameters\": {\"query\": \"a\"}}\n{\"name\": \"read_file\", \"arguments\": \"{\\\"path\\\": \\\"/x\\\"}\"}\n",
            "Two calls:\n",
            &[
                call("search", json!({"query": "a"})),
                call("read_file", json!({"path": "/x"})),
            ],
            &CALL_JSON,
        );
}

#[test]
fn splits_qwen_xml_arrays() {
    let expected = [call("search", json!({"query": "q", "options": ["a", "b"]}))];
    for options in ["[\"a\", \"b\"]", "- a\n- b", "a\nb", "a, b", " a ,b "] {
        let input = format!(
                "Text before <tool_call>\n<function=search>\n<parameter=query>\nq\n</parameter>\n<parameter=options>\n{options}\n</parameter>\n</function>\n</tool_call> after"
            );
        check_splits(
            MarkupFormat::QwenXml,
            &input,
            "Text before  after",
            &expected,
            &["<parameter", "</function>"],
        );
    }
}

#[test]
fn splits_qwen_xml_bare_function() {
    check_splits(
            MarkupFormat::QwenXml,
            "Reading:\n<function=read_file>\n<parameter=path>\n/tmp/a b\n</parameter>\n<parameter=lines>\n1, 2\n</parameter>\n</function>\nThen more.",
            "Reading:\n\nThen more.",
            &[call("read_file", json!({"path": "/tmp/a b", "lines": [1, 2]}))],
            &["<parameter", "</function>"],
        );
}

#[test]
fn splits_text_with_lone_brackets() {
    for format in [MarkupFormat::Hermes, MarkupFormat::QwenXml] {
        for input in [
            "if a < b then {x}",
            "use {braces} freely",
            "a <tool> and </tool> and <function> and {\"a\": 1} and {\"name\": \"nope\"}",
            "math: {{x}} < {y} <",
            "inline `code` and ``double`` and ```python\nprint({1: 2})\n``` end {",
            "{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}, \"id\": 1}",
        ] {
            check_splits(format, input, input, &[], &[]);
        }
    }
}

#[test]
fn splits_malformed_tag() {
    let input = "Hi <tool_call>{\"name\": \"search\", \"arguments\": [1]}</tool_call> bye";
    let (_, whole) = run_chunks(MarkupFormat::Hermes, &[input]);
    assert_eq!(whole.text, "Hi  bye");
    assert_eq!(
        whole.malformed,
        vec!["{\"name\": \"search\", \"arguments\": [1]}".to_string()]
    );
    for (i, _) in input.char_indices().skip(1) {
        let (events, split) = run_chunks(MarkupFormat::Hermes, &[&input[..i], &input[i..]]);
        assert_eq!(split, whole, "split at {i}");
        assert_clean_text(&events, &["\"name\""], input);
    }
}

#[test]
fn parser_is_reusable_after_finish() {
    let mut parser = MarkupParser::new(MarkupFormat::Hermes, &tools());
    parser.push("<tool_call>{\"name\": \"get_time\"");
    let first = collect(parser.finish());
    assert_eq!(first.calls, vec![call("get_time", json!({}))]);
    let mut second = parser.push("plain");
    second.extend(parser.finish());
    assert_eq!(second, vec![MarkupEvent::Text("plain".to_string())]);
}

#[test]
fn large_call_in_small_chunks() {
    let big = "word {x} <y> ".repeat(20_000);
    let args = json!({"query": big});
    let input = format!(
            "Start {{\"name\": \"search\", \"arguments\": {args}}}<tool_call>{{\"name\": \"search\", \"arguments\": {args}}}</tool_call>end"
        );
    let chunks: Vec<&str> = input
        .as_bytes()
        .chunks(3)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    let (_, out) = run_chunks(MarkupFormat::Hermes, &chunks);
    assert_eq!(out.text, "Start end");
    assert_eq!(out.calls.len(), 2);
    assert!(out.calls.iter().all(|c| c.arguments == args));
}
