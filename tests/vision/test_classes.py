from vision.classes import BACK_ID, CLASS_NAMES, display_name


def test_class_order_is_fixed():
    assert CLASS_NAMES[:3] == ("1m", "2m", "3m")
    assert CLASS_NAMES[27:] == ("E", "S", "W", "N", "C", "F", "P", "back")
    assert BACK_ID == 34


def test_display_names():
    assert display_name("5m") == "五万"
    assert display_name("9s") == "九条"
    assert display_name("C") == "中"
    assert display_name("back") == "背面"
