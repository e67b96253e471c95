/** An RGB pixel buffer with the few drawing operations a bar chart needs. Pure. */
import { glyphCells, GLYPH_ADVANCE } from './pixel-font.js';

export type Rgb = readonly [number, number, number];

export class Raster {
  readonly pixels: Uint8Array;

  constructor(
    readonly width: number,
    readonly height: number,
    background: Rgb,
  ) {
    this.pixels = new Uint8Array(width * height * 3);
    this.fillRect(0, 0, width, height, background);
  }

  /** Fills a rectangle, clipped to the raster; coordinates are rounded. */
  fillRect(x: number, y: number, w: number, h: number, color: Rgb): void {
    const x0 = Math.max(0, Math.round(x));
    const y0 = Math.max(0, Math.round(y));
    const x1 = Math.min(this.width, Math.round(x + w));
    const y1 = Math.min(this.height, Math.round(y + h));
    for (let row = y0; row < y1; row++) {
      for (let col = x0; col < x1; col++) this.pixels.set(color, (row * this.width + col) * 3);
    }
  }

  /** Draws text with its top-left corner at (x, y), each font pixel `scale` device pixels wide. */
  drawText(x: number, y: number, text: string, scale: number, color: Rgb): void {
    [...text].forEach((char, i) => {
      const left = x + i * GLYPH_ADVANCE * scale;
      for (const [cx, cy] of glyphCells(char)) this.fillRect(left + cx * scale, y + cy * scale, scale, scale, color);
    });
  }
}
