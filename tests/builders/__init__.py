"""What many tests build before they check anything, driven over the real API (or, in
`pages`, the real page forms), one module a domain: accounts, campaigns, maps, companies,
rounds, battles, settlements, guilds, movement. A builder asserts each call it makes
succeeded, so a test fails where its setup broke, not later."""
