from textflow.util.case import camel_case, kebab_case, pascal_case, snake_case, split_words, title_case


def test_split_words_on_separators_and_case():
    assert split_words("parseHTML_file-name") == ["parse", "HTML", "file", "name"]


def test_snake_and_kebab():
    assert snake_case("Hello World") == "hello_world"
    assert kebab_case("someValue here") == "some-value-here"


def test_camel_and_pascal():
    assert camel_case("hello big world") == "helloBigWorld"
    assert pascal_case("hello_big world") == "HelloBigWorld"
    assert camel_case("") == ""


def test_title_case_keeps_spacing():
    assert title_case("the  old man's tale") == "The  Old Man's Tale"
