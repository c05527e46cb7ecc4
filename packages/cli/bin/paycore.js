#!/usr/bin/env node
// `paycore`: the built CLI (dist/main.js, made by `npm run build`). A file of its own, checked in executable, so
// the bin works before and after the build writes dist/ (tsc does not make its output executable).
import "../dist/main.js"
