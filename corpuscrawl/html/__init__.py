"""HTML shared by every part: the parsed page (:mod:`.page`) and the DOM helpers and tag vocabulary (:mod:`.dom`)."""
