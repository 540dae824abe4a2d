//! An llm hook's prompt template ([`render`]) for an event (first byte) and an empty or a full
//! context. Property: a template without `{{` renders as itself.
#![cfg_attr(fuzzing, no_main)]

use hook_llm::render;

fn fuzz(data: &[u8]) {
    let (choice, template) = hookwire_fuzz::split_choice(data);
    let context = hookwire_fuzz::context(choice);
    let rendered = render(&template, hookwire_fuzz::event(choice), &context);
    if !template.contains("{{") {
        assert_eq!(rendered, template, "a template without placeholders changed");
    }
}

hookwire_fuzz::target!(fuzz);
