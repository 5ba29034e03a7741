"""The net room's Scrapy glue: the private-network guard (resolver, middleware), politeness (throttle, retry, add-on) and robots.txt middlewares; the only modules of net that import Scrapy."""
