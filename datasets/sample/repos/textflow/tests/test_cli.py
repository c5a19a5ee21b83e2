import io
import json

from textflow.cli import main


def run(argv, stdin=""):
    out = io.StringIO()
    code = main(argv, stdin=io.StringIO(stdin), stdout=out)
    return code, out.getvalue()


def test_cli_slug():
    assert run(["slug", "Hello", "World!"]) == (0, "hello-world\n")


def test_cli_wrap_from_stdin():
    assert run(["wrap", "-w", "10"], "the quick brown fox\n\nnext para") == (0, "the quick\nbrown fox\n\nnext para\n")


def test_cli_stats_json():
    code, out = run(["stats", "--json", "--top", "1"], "Cats nap. Cats eat.")
    assert code == 0
    data = json.loads(out)
    assert data["words"] == 4 and data["sentences"] == 2
    assert data["top_words"] == [["cats", 2]]


def test_cli_render_html_and_plain(tmp_path):
    path = tmp_path / "doc.md"
    path.write_text("# T\n\n*x*\n", encoding="utf-8")
    assert run(["render", str(path)]) == (0, "<h1>T</h1>\n<p><em>x</em></p>\n")
    assert run(["render", "-f", "plain", str(path)]) == (0, "T\n=\n\nx\n")


def test_cli_missing_file_is_an_error(tmp_path, capsys):
    code, _ = run(["render", str(tmp_path / "missing.md")])
    assert code == 1
    assert "textflow: error:" in capsys.readouterr().err
