import { afterAll } from "vitest";
import { removeTempDirs } from "./helpers/temp.js";

afterAll(() => removeTempDirs());
