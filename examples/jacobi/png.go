package main

import (
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
)

// writePNG writes the field as a colour image, downsampled (by averaging)
// to at most 1024 × 1024: blue for -1, white for 0, red for +1, with the
// colour following sign(v)·|v|^¼ so that the thin layers the heat has
// spread into from the side walls show.
func writePNG(path string, g []float32, nx, ny int) error {
	step := max(1, (max(nx, ny)+1023)/1024)
	w, h := (nx+step-1)/step, (ny+step-1)/step
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			var sum float64
			n := 0
			for iy := y * step; iy < min(ny, (y+1)*step); iy++ {
				for ix := x * step; ix < min(nx, (x+1)*step); ix++ {
					sum += float64(g[iy*nx+ix])
					n++
				}
			}
			img.Set(x, y, colour(sum/float64(n)))
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func colour(v float64) color.RGBA {
	v = max(-1, min(1, v))
	v = math.Copysign(math.Sqrt(math.Sqrt(math.Abs(v))), v)
	if v >= 0 {
		c := uint8(255 * (1 - v))
		return color.RGBA{255, c, c, 255}
	}
	c := uint8(255 * (1 + v))
	return color.RGBA{c, c, 255, 255}
}
