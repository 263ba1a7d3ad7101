// A short hello-world per language, loaded into an editor when its
// language is picked (unless the user has edited the code).
const kSamples = {
  python: 'import sys\n\nname = sys.stdin.read().strip() or "world"\nprint(f"Hello, {name}!")\n',
  javascript:
    'const input = require("fs").readFileSync(0, "utf8").trim();\nconsole.log(`Hello, ${input || "world"}!`);\n',
  typescript:
    'import {readFileSync} from "fs";\n\n' +
    'const name: string = readFileSync(0, "utf8").trim() || "world";\nconsole.log(`Hello, ${name}!`);\n',
  bash: 'read -r name || true\necho "Hello, ${name:-world}!"\n',
  c:
    '#include <stdio.h>\n\nint main(void) {\n  char name[100] = "world";\n' +
    '  if (scanf("%99s", name) != 1) {}\n  printf("Hello, %s!\\n", name);\n  return 0;\n}\n',
  cpp:
    '#include <iostream>\n#include <string>\n\nint main() {\n  std::string name;\n' +
    '  if (!(std::cin >> name)) name = "world";\n  std::cout << "Hello, " << name << "!\\n";\n}\n',
  go:
    'package main\n\nimport "fmt"\n\nfunc main() {\n\tname := "world"\n' +
    '\tfmt.Scan(&name)\n\tfmt.Printf("Hello, %s!\\n", name)\n}\n',
  java:
    'import java.util.Scanner;\n\npublic class Main {\n  public static void main(String[] args) {\n' +
    '    Scanner in = new Scanner(System.in);\n    String name = in.hasNext() ? in.next() : "world";\n' +
    '    System.out.println("Hello, " + name + "!");\n  }\n}\n',
  rust:
    'use std::io::Read;\n\nfn main() {\n    let mut input = String::new();\n' +
    '    std::io::stdin().read_to_string(&mut input).unwrap();\n' +
    '    let name = input.trim();\n' +
    '    println!("Hello, {}!", if name.is_empty() { "world" } else { name });\n}\n',
};

// The sample for a language name; a language without one gets a comment.
export function sampleFor(language) {
  return kSamples[language] || `# ${language}: write your program here\n`;
}

// The language marked default in /v1/languages' list, else the first one.
export function defaultLanguage(languages) {
  const d = languages.find((l) => l.default) || languages[0];
  return d ? d.name : 'python';
}

// <option>s for a language <select>: "python (3.11)".
export function languageOptions(languages, el, selected) {
  return languages.map((l) =>
    el('option', {value: l.name, selected: l.name === selected}, l.version ? `${l.name} (${l.version})` : l.name),
  );
}
