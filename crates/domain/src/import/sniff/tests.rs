use super::*;

/// The keys and lines `text` (in the file `name`) sets, or `None`.
fn keys(name: &str, text: &str) -> Option<Vec<(String, usize)>> {
    sniff(name, text).map(|s| s.settings.into_iter().map(|s| (s.key, s.line)).collect())
}

fn one(key: &str, line: usize) -> Option<Vec<(String, usize)>> {
    Some(vec![(key.to_owned(), line)])
}

#[test]
fn every_spelling_and_form_of_a_proxy_setting_is_found() {
    for (name, text, key) in [
        (
            "environment",
            "PATH=/usr/bin\nhttp_proxy=http://p:1\n",
            "http_proxy",
        ),
        (
            "proxy.sh",
            "export HTTPS_PROXY=\"http://p:1\"\n",
            "HTTPS_PROXY",
        ),
        ("settings.env", "No_Proxy=.corp\n", "No_Proxy"),
        (
            "values.yaml",
            "global:\n  httpProxy: http://p:1\n",
            "httpProxy",
        ),
        (
            "values.yaml",
            "a:\n  http-proxy: 'http://p:1'\n",
            "http-proxy",
        ),
        (
            "c.json",
            "{\n  \"httpsProxy\": \"http://p:1\"\n}\n",
            "httpsProxy",
        ),
        ("c.toml", "[net]\nno-proxy = \"a,b\"\n", "no-proxy"),
        (
            "unit",
            "Environment=\"HTTPS_PROXY=http://p:1\"\n",
            "HTTPS_PROXY",
        ),
        (
            "Dockerfile",
            "FROM x\nENV http_proxy http://p:1\n",
            "http_proxy",
        ),
        (
            "01proxy",
            "Acquire::http::Proxy \"http://p:1\";\n",
            "Acquire::http::Proxy",
        ),
        (
            "Jenkinsfile",
            "pipeline {\n  environment {\n    https_proxy = 'http://p:1'\n  }\n}\n",
            "https_proxy",
        ),
        (
            "settings.xml",
            "<settings>\n  <httpProxy>http://p:1</httpProxy>\n</settings>\n",
            "httpProxy",
        ),
        (".npmrc", "registry=x\nproxy=http://p:1\n", "proxy"),
        (
            "deploy.yaml",
            "env:\n  - name: HTTP_PROXY\n    value: http://p:1\n",
            "HTTP_PROXY",
        ),
        ("list.yaml", "noProxy:\n  - .corp\n", "noProxy"),
        (
            "ci.yml",
            "env:\n  TKG_HTTP_PROXY: ${{ secrets.PROXY }}\n",
            "TKG_HTTP_PROXY",
        ),
        (
            "run.sh",
            "docker build --build-arg NO_PROXY=\"a,b\" .\n",
            "NO_PROXY",
        ),
        (
            "run.sh",
            "env http_proxy= HTTPS_PROXY=http://p:1 cmd\n",
            "HTTPS_PROXY",
        ),
    ] {
        let line = text.lines().position(|l| l.contains(key)).unwrap() + 1;
        assert_eq!(keys(name, text), one(key, line), "{name}: {text}");
    }
}

#[test]
fn proxy_blocks_are_found_by_their_entries() {
    for (name, text, entry, line) in [
        ("c.yaml", "proxy:\n  http: http://p:1\n  https: http://p:1\n", "http", 1),
        ("c.yaml", "spec:\n  proxy:\n    no: [a]\n", "no", 2),
        ("c.ini", "[main]\nx = 1\n[proxy]\nhost = p.corp\n", "host", 3),
        ("c.toml", "[tool.proxy]\nurl = \"http://p:1\"\n", "url", 1),
        ("c.json", "{\n  \"proxy\": {\n    \"https\": \"http://p:1\"\n  }\n}\n", "https", 2),
        ("settings.xml", "<settings>\n  <proxies>\n    <proxy>\n      <id>p</id>\n      <host>p.corp</host>\n    </proxy>\n  </proxies>\n</settings>\n", "host", 2),
    ] {
        assert_eq!(
            keys(name, text),
            one(&format!("a `proxy` block (`{entry}`)"), line),
            "{name}: {text}"
        );
    }
}

#[test]
fn files_that_set_no_proxy_stay_quiet() {
    for (name, text) in [
        ("env", "PATH=/usr/bin\n"),
        // Unset, empty, boolean or a reference: nothing set.
        (
            "run.sh",
            "env http_proxy= https_proxy= NO_PROXY= cmd\nunset http_proxy\n",
        ),
        ("run.sh", "echo \"$HTTP_PROXY\" ${https_proxy}\n"),
        ("ci.yml", "run: curl -x \"${{ env.HTTP_PROXY }}\" x\n"),
        (
            "v.yaml",
            "httpProxy: \"\"\nenableHttpProxy: true\nnoProxy: null\n",
        ),
        ("v.yaml", "proxy:\n  enabled: false\n"),
        ("cm.yaml", "metadata:\n  name: http-proxy\nspec: {}\n"),
        // Comments.
        ("Dockerfile", "FROM x\n# ENV HTTP_PROXY http://p:1\n"),
        ("apt.conf", "// Acquire::http::Proxy \"http://p:1\";\n"),
        (
            "settings.xml",
            "<settings>\n  <!--\n  <proxy>\n    <host>p</host>\n  </proxy>\n  -->\n</settings>\n",
        ),
        ("a.ini", "; https_proxy = http://p:1\n"),
        // Documentation and source code.
        ("README.md", "Set HTTP_PROXY=http://p:1 first.\n"),
        (
            "main.go",
            "// HTTP_PROXY=http://p:1 is read by Go\nvar httpProxy = \"http://p:1\"\n",
        ),
        ("a.py", "os.environ[\"HTTP_PROXY\"] = \"http://p:1\"\n"),
        ("Makefile", "git-remote-https--proxy: git-remote-https\n"),
        // A JSON schema describes the settings, setting none.
        ("schema.json", "{\n  \"httpProxy\": {\n    \"type\": \"string\"\n  },\n  \"proxy\": {\n    \"noProxy\": {\"type\": \"array\"}\n  }\n}\n"),
        // Terraform's own files: the profiles' configuration and state.
        ("fleet.tf", "  http_proxy = each.value.http_proxy\n"),
        ("prod.tfvars", "https_proxy = \"http://p:1\"\n"),
        // A proxy in a value, not a setting.
        (
            "deploy.yaml",
            "env:\n  - name: UPSTREAM\n    value: http://web-proxy.corp:8080\n",
        ),
        ("x.yaml", "id: http-proxy\nkind: HttpProxy\n"),
    ] {
        assert_eq!(keys(name, text), None, "{name}: {text}");
    }
}

/// A value, a password above all, is never in the reason: only keys and
/// lines are.
#[test]
fn the_reason_names_keys_and_lines_never_values() {
    let text = "FROM x\nENV HTTP_PROXY=http://u:S3cr3t@p:1\nENV https_proxy \"http://u:S3cr3t@p:1\"\nENV no_proxy=.corp\nENV NO_PROXY=.corp2\n";
    let sniffed = sniff("Dockerfile", text).unwrap();
    assert_eq!(sniffed.looks_like, "a Dockerfile");
    let reason = sniffed.reason("images/Dockerfile");
    assert_eq!(
        reason,
        format!(
            "sets HTTP_PROXY at line 2, https_proxy at line 3, no_proxy at line 4 and 1 more (looks like a Dockerfile), but no importer reads this format: import it with `kinds = {{ \"images/Dockerfile\" = \"<kind>\" }}` if it is one of {}, or leave it out with `exclude`.",
            crate::import::kinds().join(", ")
        )
    );
    for secret in ["S3cr3t", "u:", "p:1", ".corp"] {
        assert!(!reason.contains(secret), "{secret} in {reason}");
    }
    let two = sniff(
        "environment",
        "http_proxy=http://p:1\nhttps_proxy=http://p:1\n",
    )
    .unwrap();
    assert!(two.reason("environment").starts_with(
        "sets http_proxy at line 1 and https_proxy at line 2 (looks like a shell environment file)"
    ));
}

#[test]
fn what_a_file_looks_like_is_said() {
    for (name, text, looks) in [
        (
            "Jenkinsfile",
            "pipeline {\n environment {\n  http_proxy = 'http://p:1'\n }\n}\n",
            "a Jenkins pipeline",
        ),
        (
            "ci.yml",
            "on: push\njobs:\n  b:\n    runs-on: x\n    env:\n      HTTP_PROXY: http://p:1\n",
            "a GitHub Actions workflow",
        ),
        (
            "settings.xml",
            "<settings>\n<proxies>\n<proxy>\n<host>p</host>\n</proxy>\n</proxies>\n</settings>\n",
            "a Maven settings.xml",
        ),
        (
            "01proxy",
            "Acquire::http::Proxy \"http://p:1\";\n",
            "an APT configuration file",
        ),
        (
            "environment",
            "http_proxy=http://p:1\n",
            "a shell environment file",
        ),
        (
            "proxy.sh",
            "export http_proxy=http://p:1\n",
            "a shell script",
        ),
        (
            "group_vars.yml",
            "proxy_env:\n  http_proxy: http://p:1\n",
            "a YAML file",
        ),
        ("c.json", "{\"httpProxy\": \"http://p:1\"}\n", "a JSON file"),
    ] {
        let sniffed = sniff(name, text);
        assert_eq!(sniffed.map(|s| s.looks_like), Some(looks), "{name}");
    }
}

/// Whatever the text, the sniff ends without a panic and names no value.
#[test]
fn odd_text_never_panics() {
    for text in [
        "",
        "=",
        ":",
        "http_proxy",
        "http_proxy=",
        "\"http_proxy\"",
        "<http_proxy>",
        "<proxy>",
        "proxy:\n",
        "[proxy",
        "- name: http_proxy",
        "ENV http_proxy",
        "Acquire::http::Proxy",
        "é_proxy=ü\nhttps_proxy=\"é",
        "/* http_proxy=x",
    ] {
        let _ = sniff("f", text);
    }
}

/// Every sequence of up to four of the fragments the sniff reacts to ends
/// without a panic, each setting on a line of the text.
#[test]
fn every_short_mix_of_fragments_is_read_without_a_panic() {
    let fragments = [
        "http_proxy",
        "proxy",
        "=",
        ":",
        "\"",
        "'",
        "<",
        ">",
        "\n",
        " ",
        "é",
        "[",
        "]",
        "$",
        "- name:",
        "value",
        "::",
        "ENV ",
        "{",
        "/*",
        "<!--",
        "#",
    ];
    let n = fragments.len();
    for len in 1..=4u32 {
        for mut code in 0..n.pow(len) {
            let mut text = String::new();
            for _ in 0..len {
                text.push_str(fragments[code % n]);
                code /= n;
            }
            if let Some(sniffed) = sniff("f", &text) {
                let lines = text.lines().count().max(1);
                assert!(
                    sniffed
                        .settings
                        .iter()
                        .all(|s| s.line >= 1 && s.line <= lines),
                    "{text:?}"
                );
            }
        }
    }
}
