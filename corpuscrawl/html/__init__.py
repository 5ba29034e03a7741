"""HTML shared by every part: the parsed page (:mod:`.page`), the DOM helpers and tag vocabulary (:mod:`.dom`) and text normalisation (:mod:`.text`)."""
