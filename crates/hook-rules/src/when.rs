//! The `when` matcher: a CEL expression over one tool call, for what the other matchers do
//! not say (a Write over 1 MB, an MCP tool by name, a fetch to a host off a list).
//!
//! CEL (the `cel` crate) is a language made for this: no loops, no recursion, no functions of
//! the writer's own, so an expression's cost is bounded by its size and its input's. The
//! expression is parsed once, when the rules file loads, and every name it uses is checked
//! then: an unknown variable or function (`too.name`, `sise(…)`) refuses the file, as a typo
//! must never switch a guard off. What CEL leaves to its input is bounded here: the expression's
//! length, how deeply its macros (`exists`, `all`, `map`, `filter`) nest, and how many values
//! of the tool input it is handed.

use std::sync::{Arc, OnceLock};

use cel::{
    Context, Env, Program, Value,
    common::ast::{EntryExpr, Expr, IdedExpr},
    objects::{Key, Map},
};
use hook_protocol::serde_json::{self, Value as Json};

/// The variables an expression may read.
pub const VARIABLES: [&str; 8] = ["tool", "class", "command", "paths", "input", "event", "agent", "cwd"];

/// The type names an expression may compare with (`type(x) == string`).
const TYPES: [&str; 11] =
    ["int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type", "dyn"];

/// The functions an expression may call: CEL's standard library (without timestamps and
/// durations) and its strings extension. Operators (`_==_`, `@in`, …) are not names one
/// can mistype and are not listed.
const FUNCTIONS: &[&str] = &[
    // The standard library.
    "size",
    "contains",
    "startsWith",
    "endsWith",
    "matches",
    "int",
    "uint",
    "double",
    "string",
    "bool",
    "bytes",
    "type",
    "dyn",
    // Optional values.
    "optional.of",
    "optional.ofNonZeroValue",
    "optional.none",
    "hasValue",
    "value",
    "or",
    "orValue",
    // The strings extension.
    "charAt",
    "indexOf",
    "lastIndexOf",
    "join",
    "lowerAscii",
    "upperAscii",
    "trim",
    "replace",
    "split",
    "substring",
    "format",
    "reverse",
    "strings.quote",
];

/// The longest expression, in bytes: a guard is a line or a few, never a program.
pub const MAX_LENGTH: usize = 4096;
/// How deeply macros may nest (`paths.exists(p, input.edits.exists(e, …))` is 2): the cost of
/// an expression grows with the input's size to this power.
pub const MAX_NESTING: usize = 2;
/// How deeply brackets may nest, and how many operators an expression may have: the
/// parser's stack grows with both (by about 130 KB a bracket in a debug build), so they are
/// bounded before it runs, and it runs on a thread of its own with 64 MiB of stack.
pub const MAX_BRACKETS: usize = 24;
/// See [`MAX_BRACKETS`].
pub const MAX_OPERATORS: usize = 64;
/// The stack of the thread an expression is parsed on.
const PARSE_STACK: usize = 64 << 20;
/// How deep the parsed expression may be: evaluating it recurses as deep.
pub const MAX_TREE_DEPTH: usize = 32;
/// How many values (objects, lists, strings, numbers, … of any size) of the tool input an
/// expression is handed; a larger input is an evaluation error, which follows `undetermined`.
pub const MAX_VALUES: usize = 4096;
/// How deeply the tool input may nest.
pub const MAX_DEPTH: usize = 32;

/// An expression that cannot be compiled: the rules file refuses to load.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WhenError {
    /// Longer than [`MAX_LENGTH`].
    #[error(
        "is {0} bytes long; an expression is at most {MAX_LENGTH}: move the logic into `command`, `path`, `content` or `url`, or split the rule"
    )]
    TooLong(usize),
    /// Not CEL.
    #[error("is not a valid CEL expression (at {line}:{column} of the expression): {message}")]
    Syntax {
        /// Line in the expression, from 1.
        line: usize,
        /// Column in the expression, from 1.
        column: usize,
        /// What the parser says.
        message: String,
    },
    /// Reads a variable that does not exist.
    #[error("reads the unknown variable `{name}` (at {line}:{column} of the expression); the variables are {}", VARIABLES.join(", "))]
    UnknownVariable {
        /// The name as written.
        name: String,
        /// Line in the expression, from 1.
        line: usize,
        /// Column in the expression, from 1.
        column: usize,
    },
    /// Calls a function that does not exist.
    #[error(
        "calls the unknown function `{name}` (at {line}:{column} of the expression); CEL's functions are size, contains, startsWith, endsWith, matches, lowerAscii, split, … and the macros has, exists, all, exists_one, map, filter"
    )]
    UnknownFunction {
        /// The name as written.
        name: String,
        /// Line in the expression, from 1.
        line: usize,
        /// Column in the expression, from 1.
        column: usize,
    },
    /// Brackets nested too deep, or too many operators, or a tree too deep.
    #[error("is too complex ({0}): split it into several rules")]
    TooComplex(String),
    /// Macros nested deeper than [`MAX_NESTING`].
    #[error(
        "nests `exists`/`all`/`map`/`filter` {0} deep (at most {MAX_NESTING}): its cost would grow with the input's size to that power"
    )]
    TooDeep(usize),
}

/// An expression that could not be evaluated on one call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WhenEvalError {
    /// The expression failed (a missing key, a type mismatch, a bad regex…).
    #[error("{0}")]
    Failed(String),
    /// It gave something other than `true` or `false`.
    #[error("gave {0}, not true or false")]
    NotBool(String),
    /// The tool input is larger than an expression is handed.
    #[error("the tool input holds more than {MAX_VALUES} values or nests deeper than {MAX_DEPTH}")]
    InputTooLarge,
}

/// A compiled `when`.
#[derive(Debug, Clone)]
pub struct When {
    program: Arc<Program>,
}

/// The call as an expression sees it.
#[derive(Debug, Clone, Default)]
pub struct WhenInput<'a> {
    /// The tool's name as the agent sent it (`""` without a tool).
    pub tool: &'a str,
    /// Its class (`shell`, `read`, `write`, …, `mcp` for an MCP tool, `other`).
    pub class: &'a str,
    /// The shell text (`""` for any other tool).
    pub command: &'a str,
    /// The paths the call names, absolute.
    pub paths: Vec<String>,
    /// The tool input object.
    pub input: Option<&'a serde_json::Map<String, Json>>,
    /// The canonical event name.
    pub event: &'a str,
    /// The agent, when known (`""` otherwise).
    pub agent: &'a str,
    /// The working directory.
    pub cwd: &'a str,
}

/// The environment every expression is compiled and run in, built once.
fn env() -> &'static Arc<Env> {
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Env::stdlib();
        // The extension only adds overloads; it fails only on a name declared twice, which
        // the tests would show.
        if let Err(error) = env.add_extension(cel::extensions::strings) {
            tracing::error!(%error, "the CEL strings extension did not register");
        }
        Arc::new(env)
    })
}

impl When {
    /// Compiles `text`, checking every name it uses.
    pub fn compile(text: &str) -> Result<When, WhenError> {
        if text.len() > MAX_LENGTH {
            return Err(WhenError::TooLong(text.len()));
        }
        let (brackets, operators) = shape(text);
        if brackets > MAX_BRACKETS {
            return Err(WhenError::TooComplex(format!("brackets nested {brackets} deep, at most {MAX_BRACKETS}")));
        }
        if operators > MAX_OPERATORS {
            return Err(WhenError::TooComplex(format!("{operators} operators, at most {MAX_OPERATORS}")));
        }
        let owned = text.to_owned();
        std::thread::Builder::new()
            .name("hookwire-when".into())
            .stack_size(PARSE_STACK)
            .spawn(move || When::compile_here(&owned))
            .map_err(|e| WhenError::TooComplex(format!("no thread to parse it on: {e}")))?
            .join()
            .unwrap_or_else(|_| Err(WhenError::TooComplex("the parser failed".into())))
    }

    fn compile_here(text: &str) -> Result<When, WhenError> {
        let program = env().compile(text).map_err(|errors| {
            let first = errors.errors.first();
            let (line, column) = first.map_or((1, 1), |e| {
                (usize::try_from(e.pos.0).unwrap_or(1).max(1), usize::try_from(e.pos.1).unwrap_or(1).max(1))
            });
            let message = first.map_or_else(|| errors.to_string(), |e| e.msg.clone());
            WhenError::Syntax { line, column, message }
        })?;
        let mut check = Check { program: &program, text, scopes: Vec::new(), depth: 0, deepest: 0, level: 0 };
        check.walk(program.expression())?;
        if check.deepest > MAX_NESTING {
            return Err(WhenError::TooDeep(check.deepest));
        }
        Ok(When { program: Arc::new(program) })
    }

    /// Whether the expression is true of `input`.
    pub fn evaluate(&self, input: &WhenInput<'_>) -> Result<bool, WhenEvalError> {
        let mut context = Context::with_env(env().clone());
        let mut budget = MAX_VALUES;
        let object = match input.input {
            Some(map) => object_value(map, &mut budget, 0)?,
            None => Value::Map(Map::from(std::collections::HashMap::<Key, Value>::new())),
        };
        context.add_variable_from_value("tool", input.tool);
        context.add_variable_from_value("class", input.class);
        context.add_variable_from_value("command", input.command);
        context.add_variable_from_value(
            "paths",
            Value::List(Arc::new(input.paths.iter().map(|p| Value::from(p.as_str())).collect())),
        );
        context.add_variable_from_value("input", object);
        context.add_variable_from_value("event", input.event);
        context.add_variable_from_value("agent", input.agent);
        context.add_variable_from_value("cwd", input.cwd);
        match self.program.execute(&context) {
            Ok(Value::Bool(value)) => Ok(value),
            Ok(other) => Err(WhenEvalError::NotBool(format!("{other:?}"))),
            Err(error) => Err(WhenEvalError::Failed(error.to_string())),
        }
    }
}

/// The JSON value as a CEL value, counting what it spends of `budget`.
fn json_value(value: &Json, budget: &mut usize, depth: usize) -> Result<Value, WhenEvalError> {
    if depth > MAX_DEPTH || *budget == 0 {
        return Err(WhenEvalError::InputTooLarge);
    }
    *budget -= 1;
    Ok(match value {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => Value::Int(i),
            (None, Some(u), _) => Value::UInt(u),
            (_, _, Some(f)) => Value::Float(f),
            _ => Value::Null,
        },
        Json::String(s) => Value::from(s.as_str()),
        Json::Array(items) => Value::List(Arc::new(
            items.iter().map(|item| json_value(item, budget, depth + 1)).collect::<Result<_, _>>()?,
        )),
        Json::Object(map) => object_value(map, budget, depth + 1)?,
    })
}

fn object_value(map: &serde_json::Map<String, Json>, budget: &mut usize, depth: usize) -> Result<Value, WhenEvalError> {
    let mut out = std::collections::HashMap::with_capacity(map.len());
    for (key, value) in map {
        out.insert(Key::from(key.as_str()), json_value(value, budget, depth)?);
    }
    Ok(Value::Map(Map::from(out)))
}

/// How deeply brackets nest in `text` and how many operators it has, outside string literals.
fn shape(text: &str) -> (usize, usize) {
    let (mut depth, mut deepest, mut operators) = (0usize, 0usize, 0usize);
    let mut chars = text.chars().peekable();
    let mut previous_operator = false;
    while let Some(c) = chars.next() {
        let operator = matches!(c, '+' | '-' | '*' | '/' | '%' | '<' | '>' | '=' | '!' | '&' | '|' | '?' | ':');
        match c {
            '\'' | '"' => {
                // Skip the literal; `\` escapes the next character (a raw string's backslash
                // only makes this skip one character too many, never too few).
                while let Some(d) = chars.next() {
                    if d == '\\' {
                        chars.next();
                    } else if d == c {
                        break;
                    }
                }
            }
            '(' | '[' | '{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ if operator && !previous_operator => operators += 1,
            _ => {}
        }
        previous_operator = operator;
    }
    (deepest, operators)
}

/// The names an expression uses, checked against [`VARIABLES`] and [`FUNCTIONS`], and how
/// deeply its macros nest.
struct Check<'a> {
    program: &'a Program,
    text: &'a str,
    /// The variables the enclosing macros bind (`p` in `paths.exists(p, …)`).
    scopes: Vec<Vec<&'a str>>,
    depth: usize,
    deepest: usize,
    /// How deep in the tree the walk is.
    level: usize,
}

impl<'a> Check<'a> {
    /// Line and column (from 1) in the expression of the node `expr`; a call is placed at its
    /// function's name, which the parser places at the `(` after it.
    fn position(&self, expr: &IdedExpr) -> (usize, usize) {
        let mut offset = self.program.source_info().offset_for(expr.id).map_or(0, |(start, _)| start as usize);
        let mut before: String = self.text.chars().take(offset).collect();
        if let Expr::Call(call) = &expr.expr {
            let name = call.func_name.rsplit('.').next().unwrap_or_default();
            if before.trim_end().ends_with(name) {
                before.truncate(before.trim_end().len() - name.len());
                offset = before.chars().count();
            }
        }
        let before: String = self.text.chars().take(offset).collect();
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, column)
    }

    fn bound(&self, name: &str) -> bool {
        self.scopes.iter().flatten().any(|n| *n == name)
    }

    fn walk(&mut self, expr: &'a IdedExpr) -> Result<(), WhenError> {
        if self.level >= MAX_TREE_DEPTH {
            return Err(WhenError::TooComplex(format!("nested more than {MAX_TREE_DEPTH} deep")));
        }
        self.level += 1;
        let result = self.walk_node(expr);
        self.level -= 1;
        result
    }

    fn walk_node(&mut self, expr: &'a IdedExpr) -> Result<(), WhenError> {
        match &expr.expr {
            Expr::Unspecified | Expr::Literal(_) => Ok(()),
            Expr::Ident(name) => {
                if name.starts_with('@')
                    || VARIABLES.contains(&name.as_str())
                    || TYPES.contains(&name.as_str())
                    || self.bound(name)
                {
                    return Ok(());
                }
                let (line, column) = self.position(expr);
                Err(WhenError::UnknownVariable { name: name.clone(), line, column })
            }
            Expr::Call(call) => {
                let name = call.func_name.as_str();
                // `optional.of(…)`, `strings.quote(…)`: a namespaced function, not a method.
                let qualified = match call.target.as_deref().map(|t| &t.expr) {
                    Some(Expr::Ident(space))
                        if ["optional", "strings"].contains(&space.as_str()) && !self.bound(space) =>
                    {
                        Some(format!("{space}.{name}"))
                    }
                    _ => None,
                };
                if let Some(qualified) = &qualified {
                    if !FUNCTIONS.contains(&qualified.as_str()) {
                        let (line, column) = self.position(expr);
                        return Err(WhenError::UnknownFunction { name: qualified.clone(), line, column });
                    }
                    return call.args.iter().try_for_each(|arg| self.walk(arg));
                }
                let operator = name.starts_with(['_', '@', '!']);
                if !operator && !FUNCTIONS.contains(&name) {
                    let (line, column) = self.position(expr);
                    return Err(WhenError::UnknownFunction { name: name.to_owned(), line, column });
                }
                if let Some(target) = &call.target {
                    self.walk(target)?;
                }
                call.args.iter().try_for_each(|arg| self.walk(arg))
            }
            Expr::Comprehension(comp) => {
                self.walk(&comp.iter_range)?;
                self.walk(&comp.accu_init)?;
                let mut scope = vec![comp.iter_var.as_str(), comp.accu_var.as_str()];
                scope.extend(comp.iter_var2.as_deref());
                self.scopes.push(scope);
                self.depth += 1;
                self.deepest = self.deepest.max(self.depth);
                let inner = [&comp.loop_cond, &comp.loop_step, &comp.result].into_iter().try_for_each(|e| self.walk(e));
                self.depth -= 1;
                self.scopes.pop();
                inner
            }
            Expr::List(list) => list.elements.iter().try_for_each(|e| self.walk(e)),
            Expr::Map(map) => map.entries.iter().try_for_each(|entry| match &entry.expr {
                EntryExpr::StructField(field) => self.walk(&field.value),
                EntryExpr::MapEntry(entry) => {
                    self.walk(&entry.key)?;
                    self.walk(&entry.value)
                }
            }),
            Expr::Select(select) => self.walk(&select.operand),
            Expr::Struct(_) => {
                let (line, column) = self.position(expr);
                Err(WhenError::UnknownFunction { name: "a message type".to_owned(), line, column })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use hook_protocol::serde_json::json;

    use super::*;

    fn input_of(value: &Json) -> &serde_json::Map<String, Json> {
        value.as_object().unwrap()
    }

    fn eval(text: &str, input: &WhenInput<'_>) -> Result<bool, WhenEvalError> {
        When::compile(text).unwrap().evaluate(input)
    }

    #[test]
    fn a_mistake_refuses_the_expression_and_says_where_it_is() {
        let err = |text: &str| When::compile(text).unwrap_err();
        assert!(matches!(err("tool == ) x"), WhenError::Syntax { line: 1, column: 9, .. }), "{:?}", err("tool == ) x"));
        assert_eq!(err("toll == 'Bash'"), WhenError::UnknownVariable { name: "toll".into(), line: 1, column: 1 });
        assert_eq!(
            err("tool == 'Bash' &&\n  comand.contains('x')"),
            WhenError::UnknownVariable { name: "comand".into(), line: 2, column: 3 }
        );
        // A macro's own variable is known inside it, and only there.
        assert!(When::compile("paths.exists(p, p.startsWith(cwd))").is_ok());
        assert_eq!(
            err("paths.exists(p, q.startsWith('/'))"),
            WhenError::UnknownVariable { name: "q".into(), line: 1, column: 17 }
        );
        assert_eq!(
            err("paths.exists(p, true) && p == ''"),
            WhenError::UnknownVariable { name: "p".into(), line: 1, column: 26 }
        );
        assert_eq!(err("sise(command) > 3"), WhenError::UnknownFunction { name: "sise".into(), line: 1, column: 1 });
        assert_eq!(
            err("command.startswith('git')"),
            WhenError::UnknownFunction { name: "startswith".into(), line: 1, column: 9 }
        );
        assert_eq!(err(&"x".repeat(MAX_LENGTH + 1)), WhenError::TooLong(MAX_LENGTH + 1));
        assert_eq!(err("paths.all(a, paths.all(b, paths.exists(c, a + b + c == '')))"), WhenError::TooDeep(3));
        assert!(err("tool == 'x'\n  && sise(paths) > 0").to_string().contains("unknown function `sise` (at 2:6"));
    }

    #[test]
    fn the_deepest_expressions_allowed_compile_and_run_on_a_small_stack_and_deeper_ones_are_refused() {
        let brackets = |n: usize| format!("{}true{}", "(".repeat(n), ")".repeat(n));
        let sums = |n: usize| format!("({}1) > 0", "1 + ".repeat(n));
        let mixed = format!("{} == {}", brackets(MAX_BRACKETS - 1), sums(MAX_TREE_DEPTH - 4));
        let mut allowed = vec![brackets(MAX_BRACKETS), sums(MAX_TREE_DEPTH - 3), mixed];
        allowed.push(format!("input{} == 0", ".a".repeat(MAX_TREE_DEPTH - 2)));
        // Evaluation runs where hooks run: on a worker thread with 2 MiB of stack.
        let done = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                allowed
                    .iter()
                    .map(|text| When::compile(text).map(|w| w.evaluate(&WhenInput::default())))
                    .collect::<Vec<_>>()
            })
            .unwrap()
            .join()
            .expect("no stack overflow");
        assert!(done.iter().all(Result::is_ok), "{done:?}");
        for refused in [
            brackets(MAX_BRACKETS + 1),
            sums(MAX_OPERATORS + 1),
            sums(MAX_TREE_DEPTH),
            format!("input{} == 0", ".a".repeat(1000)),
        ] {
            assert!(matches!(When::compile(&refused), Err(WhenError::TooComplex(_))), "{refused}");
        }
        // Brackets and operators inside string literals are text.
        assert!(When::compile(&format!("command == '{}'", "((+".repeat(500))).is_ok());
    }

    #[test]
    fn every_listed_function_exists() {
        let object = json!({"tags": ["a", "b"]});
        let input =
            WhenInput { tool: "Bash", command: "git status", input: Some(input_of(&object)), ..WhenInput::default() };
        let texts = [
            "size(command) == 10",
            "command.contains('stat')",
            "command.startsWith('git')",
            "command.endsWith('status')",
            "command.matches('^git ')",
            "int('3') == 3",
            "uint(3) == 3u",
            "double(1) == 1.0",
            "string(1) == '1'",
            "bool('true')",
            "bytes('a') == b'a'",
            "type(1) == int",
            "dyn(1) == 1",
            "optional.of(1).hasValue()",
            "optional.ofNonZeroValue(0).orValue(2) == 2",
            "!optional.none().hasValue()",
            "optional.of(1).value() == 1",
            "optional.none().or(optional.of(1)).value() == 1",
            "command.charAt(0) == 'g'",
            "command.indexOf('s') == 4",
            "command.lastIndexOf('s') == 9",
            "input.tags.join(',') == 'a,b'",
            "'GiT'.lowerAscii() == 'git'",
            "'git'.upperAscii() == 'GIT'",
            "' x '.trim() == 'x'",
            "command.replace('git', 'hg') == 'hg status'",
            "command.split(' ').size() == 2",
            "command.substring(4) == 'status'",
            "'%s'.format(['x']) == 'x'",
            "'ab'.reverse() == 'ba'",
            "strings.quote('a') == '\"a\"'",
        ];
        for text in texts {
            assert_eq!(eval(text, &input), Ok(true), "{text}");
        }
        for name in FUNCTIONS {
            // Every listed name is exercised above (a listed name the library lacks would be a
            // typo the check lets through).
            let call = name.rsplit('.').next().unwrap_or(name);
            let is_tested = texts.iter().any(|text| text.contains(&format!("{call}(")));
            assert!(is_tested, "{name} has no test");
        }
    }

    #[test]
    fn the_variables_hold_the_call() {
        let object =
            json!({"file_path": "/p/big.bin", "content": "x".repeat(2_000_000), "n": 3, "deep": {"a": [1, 2]}});
        let input = WhenInput {
            tool: "Write",
            class: "write",
            command: "",
            paths: vec!["/p/big.bin".into()],
            input: Some(input_of(&object)),
            event: "pre_tool_execution",
            agent: "Claude Code",
            cwd: "/p",
        };
        assert_eq!(eval("size(input.content) > 1000000", &input), Ok(true));
        assert_eq!(eval("input.file_path == paths[0] && paths[0].startsWith(cwd + '/')", &input), Ok(true));
        assert_eq!(eval("tool == 'Write' && class == 'write' && agent == 'Claude Code'", &input), Ok(true));
        assert_eq!(eval("event == 'pre_tool_execution' && command == ''", &input), Ok(true));
        assert_eq!(eval("input.n > 2 && input.deep.a.exists(x, x == 2)", &input), Ok(true));
        assert_eq!(eval("has(input.url) && input.url.startsWith('http')", &input), Ok(false));
    }

    #[test]
    fn an_evaluation_error_is_an_error_not_false() {
        let object = json!({"content": "abc"});
        let input = WhenInput { tool: "Write", input: Some(input_of(&object)), ..WhenInput::default() };
        assert!(matches!(eval("input.url == 'x'", &input), Err(WhenEvalError::Failed(_))));
        assert!(matches!(eval("input.content > 3", &input), Err(WhenEvalError::Failed(_))));
        assert!(matches!(eval("size(input.content)", &input), Err(WhenEvalError::NotBool(_))));
        assert!(matches!(eval("input.content.matches('(')", &input), Err(WhenEvalError::Failed(_))));
    }

    #[test]
    fn an_input_too_large_to_hand_over_is_an_error() {
        let wide = json!({"items": vec![1; MAX_VALUES + 1]});
        let input = WhenInput { input: Some(input_of(&wide)), ..WhenInput::default() };
        assert_eq!(eval("true", &input), Err(WhenEvalError::InputTooLarge));
        let mut deep = json!(1);
        for _ in 0..MAX_DEPTH + 2 {
            deep = json!({ "a": deep });
        }
        let input = WhenInput { input: Some(input_of(&deep)), ..WhenInput::default() };
        assert_eq!(eval("true", &input), Err(WhenEvalError::InputTooLarge));
        let fits = json!({"items": vec![1; MAX_VALUES - 10]});
        let input = WhenInput { input: Some(input_of(&fits)), ..WhenInput::default() };
        assert_eq!(eval("size(input.items) > 0", &input), Ok(true));
    }
}
