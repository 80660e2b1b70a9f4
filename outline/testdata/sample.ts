import { readFile } from "fs/promises";

export interface Options {
  root: string;
  depth: number;
}

export class Walker {
  constructor(private opts: Options) {}

  async walk(dir: string): Promise<string[]> {
    const out: string[] = [];
    return out;
  }
}

export function load(path: string): Promise<string> {
  return readFile(path, "utf8");
}
